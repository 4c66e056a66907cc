import { describe, expect, it } from 'vitest';
import { isFloeError } from '../../src/errors.ts';
import { importOptional, requireOptional } from '../../src/optional-dependency.ts';

function caught(action: () => unknown): unknown {
  try {
    action();
  } catch (err) {
    return err;
  }
  throw new Error('expected a throw');
}

describe('optional packages', () => {
  it('names a package that is not installed, with the command to install it', () => {
    const err = caught(() => requireOptional('floe-no-such-package', 'the widget backend'));
    expect(isFloeError(err, 'MISSING_DEPENDENCY')).toBe(true);
    expect((err as Error).message).toBe(
      'the widget backend needs the package floe-no-such-package, which is not installed; install it with `npm install floe-no-such-package`',
    );
    expect((err as { details: unknown }).details).toEqual({ package: 'floe-no-such-package' });
  });

  it('says when an installed package does not load (a native binding never built)', async () => {
    const broken = () => Promise.reject(new Error('Could not locate the bindings file. Tried:\n → /x/build/better_sqlite3.node'));
    const err = await importOptional('better-sqlite3', 'SQLite storage', broken).catch((e: unknown) => e);
    expect(isFloeError(err, 'MISSING_DEPENDENCY')).toBe(true);
    expect((err as Error).message).toBe(
      'SQLite storage needs the package better-sqlite3, which did not load (Could not locate the bindings file. Tried:); install it with `npm install better-sqlite3`',
    );
  });

  it('loads a package that is there', async () => {
    expect(typeof requireOptional<{ crc32c: unknown }>('@node-rs/crc32', 'crc32c').crc32c).toBe('function');
    expect(typeof (await importOptional('fflate', 'gzip', () => import('fflate'))).gzipSync).toBe('function');
  });
});
