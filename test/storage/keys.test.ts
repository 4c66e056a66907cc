import { describe, expect, it } from 'vitest';
import { isFloeError } from '../../src/errors.ts';
import { MAX_KEY_LENGTH, isValidKey, validateDirPrefix, validateKey, validatePrefix } from '../../src/engine/storage/keys.ts';
import { compareKeys } from '../../src/engine/storage/memory.ts';
import { BAD_KEYS } from './contract.ts';

function codeOf(fn: () => void): string | undefined {
  try {
    fn();
    return undefined;
  } catch (err) {
    return isFloeError(err) ? err.code : 'not a FloeError';
  }
}

describe('storage keys', () => {
  it('refuses every unsafe key with INVALID_KEY naming the key', () => {
    for (const key of [...BAD_KEYS, 'x'.repeat(MAX_KEY_LENGTH + 1), 'a/\u0085b']) {
      expect(codeOf(() => validateKey(key)), JSON.stringify(key)).toBe('INVALID_KEY');
      expect(isValidKey(key)).toBe(false);
    }
    expect(() => validateKey('a/../b')).toThrow(/"a\/\.\.\/b".*'\.\.' segment/);
  });

  it('accepts prefixes that are partial keys, but not ones that escape', () => {
    for (const ok of ['', 'a/', 'a/b', 'a/.', 'a/..x', 'zarr.js']) expect(codeOf(() => validatePrefix(ok)), ok).toBeUndefined();
    for (const bad of ['/a', '../', 'a/../', 'a//', 'a\\', './x']) expect(codeOf(() => validatePrefix(bad)), bad).toBe('INVALID_KEY');
    expect(codeOf(() => validateDirPrefix('a/b'))).toBe('INVALID_KEY');
    expect(codeOf(() => validateDirPrefix('a/b/'))).toBeUndefined();
  });

  it('orders keys by UTF-8 bytes (code points), as S3 lists them', () => {
    const keys = ['b', 'a/b', 'a', '\uffff', '😀', 'a-b', 'A'];
    const byBytes = [...keys].sort((x, y) => Buffer.compare(Buffer.from(x), Buffer.from(y)));
    expect([...keys].sort(compareKeys)).toEqual(byBytes);
  });
});
