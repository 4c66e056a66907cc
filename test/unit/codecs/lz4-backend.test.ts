// FLOE_LZ4 picks the LZ4 implementation on first use: js forces Floe's own, napi requires
// lz4-napi, anything else is refused by name rather than ignored.
import { afterEach, expect, it } from 'vitest';
import { isFloeError } from '../../../src/errors.ts';
import { lz4Backend, lz4Implementation, lz4NapiAvailable, selectLz4Backend } from '../../../src/format/codecs/lz4-backend.ts';

const saved = process.env['FLOE_LZ4'];

afterEach(() => {
  if (saved === undefined) delete process.env['FLOE_LZ4'];
  else process.env['FLOE_LZ4'] = saved;
  selectLz4Backend('auto');
});

function chooseWith(value: string): unknown {
  process.env['FLOE_LZ4'] = value;
  selectLz4Backend('auto'); // forget the earlier choice
  try {
    return lz4Backend().name;
  } catch (err) {
    return err;
  }
}

it('FLOE_LZ4=js forces the TypeScript backend and says so', () => {
  expect(chooseWith('js')).toBe('floe-js');
  expect(lz4Implementation()).toEqual({ name: 'floe-js', reason: 'forced by FLOE_LZ4=js' });
});

it('FLOE_LZ4=napi loads lz4-napi, or fails with UNSUPPORTED naming the package', () => {
  const got = chooseWith('napi');
  if (lz4NapiAvailable()) expect(got).toBe('lz4-napi');
  else expect(isFloeError(got, 'UNSUPPORTED') && got.message).toContain('lz4-napi');
});

it('an unknown FLOE_LZ4 value is refused, not ignored', () => {
  const got = chooseWith('fast');
  expect(isFloeError(got, 'INVALID_ARGUMENT') && got.message).toContain('FLOE_LZ4 must be napi, js or auto, got "fast"');
});

it('auto takes lz4-napi when it loads and the TypeScript backend otherwise', () => {
  expect(chooseWith('')).toBe(lz4NapiAvailable() ? 'lz4-napi' : 'floe-js');
});
