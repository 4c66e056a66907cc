// The registry's lazily loaded codecs, in a fresh module graph (vitest isolates each test file):
// names and capabilities known from the start, code loaded only for the metadata that names it.
import { describe, expect, it } from 'vitest';
import { isFloeError } from '../../../src/errors.ts';
import { buildCodecChain } from '../../../src/format/codecs/pipeline.ts';
import { codecDescription, loadCodecsMentionedIn, ZARR_V1_COMPRESSOR_NAMES, ZARR_V3_CODEC_NAMES, zarrV1Implementation, zarrV3Implementation } from '../../../src/format/codecs/registry.ts';
import { parseDataType } from '../../../src/format/zarr/data-types.ts';
import { defaultFillValue } from '../../../src/format/zarr/fill-value.ts';

const int32 = parseDataType('int32');
const spec = { shape: [4], dataType: int32, fillValue: defaultFillValue(int32) };

/** True when the implementation of `name` has loaded (a sync lookup of one that has not throws). */
function isLoaded(name: string): boolean {
  try {
    return zarrV3Implementation(name) !== undefined;
  } catch (err) {
    expect((err as Error).message).toContain('used before its module loaded');
    return false;
  }
}

describe('lazily loaded codecs', () => {
  it('are named and described before any loads', () => {
    expect(ZARR_V3_CODEC_NAMES).toContain('numcodecs.delta');
    expect(ZARR_V3_CODEC_NAMES).toContain('numcodecs.jenkins_lookup3');
    expect(ZARR_V1_COMPRESSOR_NAMES).toEqual(['zlib', 'gzip', 'bz2', 'lzma', 'blosc']);
    expect(codecDescription('numcodecs.shuffle')).toMatchObject({ kind: 'bytes_to_bytes', capabilities: { boundedDecode: true, fixedEncodedSize: true } });
    expect(isLoaded('numcodecs.delta')).toBe(false);
  });

  it('refuse an unknown codec with the same FloeError, listing the lazy names, without loading them', () => {
    let caught: unknown;
    try {
      buildCodecChain([{ name: 'bytes', configuration: { endian: 'little' } }, { name: 'nope' }], spec);
    } catch (err) {
      caught = err;
    }
    expect(isFloeError(caught) && caught.code).toBe('UNSUPPORTED');
    expect((caught as Error).message).toContain(`Floe implements ${ZARR_V3_CODEC_NAMES.join(', ')}`);
    expect((caught as Error).message).toContain('numcodecs.fixedscaleoffset');
    expect(isLoaded('numcodecs.fixedscaleoffset')).toBe(false);
  });

  it('load for a document that names them, and only those', async () => {
    await loadCodecsMentionedIn(new TextEncoder().encode('{"filters": [{"id": "delta", "dtype": "<i4"}], "attributes": {"note": "quantize"}}'));
    expect(isLoaded('numcodecs.delta')).toBe(true);
    expect(isLoaded('numcodecs.quantize')).toBe(false); // a plain string, not an id or codec name
    expect(isLoaded('numcodecs.bitround')).toBe(false);
    const chain = buildCodecChain([{ name: 'numcodecs.delta', configuration: { dtype: '<i4' } }, { name: 'bytes', configuration: { endian: 'little' } }], spec);
    const data = Int32Array.from([3, 5, 9, 2]);
    expect(Array.from(chain.decode(chain.encode({ data, shape: [4], stride: [1] })).data as Int32Array)).toEqual([3, 5, 9, 2]);
  });

  it('load by v3 name and by v1 compression, from parsed JSON', async () => {
    await loadCodecsMentionedIn({ codecs: [{ name: 'numcodecs.crc32' }] });
    expect(isLoaded('numcodecs.crc32')).toBe(true);
    expect(isLoaded('numcodecs.adler32')).toBe(true); // same module
    expect(() => zarrV1Implementation('lzma')).toThrow('used before its module loaded');
    await loadCodecsMentionedIn({ compression: 'lzma', fill_value: 10n });
    expect(zarrV1Implementation('lzma')?.name).toBe('lzma');
  });
});
