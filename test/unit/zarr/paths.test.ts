// Node names and paths (Zarr v3 core, "Node names").
import { describe, expect, it } from 'vitest';
import { isFloeError } from '../../../src/errors.ts';
import { baseName, joinPath, keyPrefix, metadataKey, normalizePath, parentPath, validateNodeName } from '../../../src/format/zarr/paths.ts';

describe('node names', () => {
  it.each(['a', 'A_b-c.d', '.hidden', 'a..b', '_x', 'é日本', '1', ' '])('accepts %j', (name) => {
    expect(() => validateNodeName(name)).not.toThrow();
  });

  it.each([
    ['', 'empty'], ['a/b', '"/"'], ['.', 'periods'], ['..', 'periods'], ['...', 'periods'], ['__meta', '"__"'], ['a\u0000b', 'NUL'],
  ])('refuses %j with INVALID_NAME saying why', (name, why) => {
    let caught: unknown;
    try {
      validateNodeName(name);
    } catch (err) {
      caught = err;
    }
    expect(isFloeError(caught, 'INVALID_NAME')).toBe(true);
    expect((caught as Error).message).toContain(why);
  });
});

describe('paths', () => {
  it('normalises slashes and the root', () => {
    expect(normalizePath('')).toBe('/');
    expect(normalizePath('/')).toBe('/');
    expect(normalizePath('a/b')).toBe('/a/b');
    expect(normalizePath('//a//b/')).toBe('/a/b');
  });

  it('refuses paths with a forbidden name anywhere', () => {
    for (const p of ['/a/../b', '/a/./b', '/__x/y', '/a/..']) {
      expect(() => normalizePath(p)).toThrow(expect.objectContaining({ code: 'INVALID_NAME' }));
    }
  });

  it('derives store keys, parents and base names', () => {
    expect(keyPrefix('/')).toBe('');
    expect(keyPrefix('/a/b')).toBe('a/b/');
    expect(metadataKey('/')).toBe('zarr.json');
    expect(metadataKey('a/b')).toBe('a/b/zarr.json');
    expect(joinPath('/', 'x')).toBe('/x');
    expect(joinPath('/a', 'x')).toBe('/a/x');
    expect(() => joinPath('/a', 'x/y')).toThrow(expect.objectContaining({ code: 'INVALID_NAME' }));
    expect(parentPath('/a/b')).toBe('/a');
    expect(parentPath('/a')).toBe('/');
    expect(parentPath('/')).toBe('/');
    expect(baseName('/a/b')).toBe('b');
    expect(baseName('/')).toBe('');
  });
});
