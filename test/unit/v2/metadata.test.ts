// Zarr v2 metadata: `.zarray` validation with typed errors naming the key, dtypes by NumPy
// typestr, fill values in zarr-python 2's forms, codecs refused by name with the supported list,
// and documents written the way zarr-python 2 writes them.
import { describe, expect, it } from 'vitest';
import { documentWith, failureOf } from '../../support/error-code.ts';
import { parseNumpyDataType, V2_DIALECT } from '../../../src/format/numpy/dtype.ts';
import { createV2ArrayMetadata } from '../../../src/format/zarr-v2/create.ts';
import { encodeZmetadata, parseZmetadata } from '../../../src/format/zarr-v2/consolidated.ts';
import { encodeV2ArrayMetadata, encodeV2GroupMetadata, parseV2ArrayMetadata, parseV2GroupMetadata, v2ArrayView } from '../../../src/format/zarr-v2/metadata.ts';
import { allCodecImplementations } from '../../../src/format/codecs/registry.ts';

// These tests build codecs through the registry's synchronous lookups: load the lazy ones first.
await allCodecImplementations();

const base = { chunks: [2], compressor: null, dtype: '<i4', fill_value: 0, filters: null, order: 'C', shape: [5], zarr_format: 2 };
const text = (patch: Record<string, unknown>, drop?: string) => documentWith(base, patch, drop);

const failure = failureOf;

const SUPPORTED = /gzip, zstd, blosc, crc32c, zlib, bz2, lzma, lz4, shuffle, crc32, adler32, fletcher32, jenkins_lookup3, delta, fixedscaleoffset, quantize, bitround, packbits, astype, categorize and the object codecs vlen-utf8, vlen-bytes, vlen-array, json2, msgpack2/;

describe('parseV2ArrayMetadata refuses bad documents with typed errors naming .zarray', () => {
  it.each([
    ['malformed JSON', '{"shape": [1', 'INVALID_METADATA', /invalid JSON/],
    ['not an object', '[1]', 'INVALID_METADATA', /JSON object/],
    ['a missing field', text({}, 'filters'), 'INVALID_METADATA', /"filters" is required/],
    ['zarr_format 3', text({ zarr_format: 3 }), 'INVALID_METADATA', /must be 2/],
    ['negative shape', text({ shape: [-1] }), 'INVALID_METADATA', /"shape"/],
    ['zero chunk', text({ chunks: [0] }), 'INVALID_METADATA', /"chunks"/],
    ['rank mismatch', text({ chunks: [2, 2] }), 'INVALID_METADATA', /dimensions/],
    ['order X', text({ order: 'X' }), 'INVALID_METADATA', /"order"/],
    ['separator -', text({ dimension_separator: '-' }), 'INVALID_METADATA', /dimension_separator/],
    ['an unknown compressor', text({ compressor: { id: 'lz5' } }), 'UNSUPPORTED', SUPPORTED],
    ['pcodec, for want of a library', text({ compressor: { id: 'pcodec', level: 8 } }), 'UNSUPPORTED', /"pcodec" is not supported \(no maintained JavaScript implementation of pcodec exists\)/],
    ['zfpy, for want of a library', text({ dtype: '<f8', compressor: { id: 'zfpy', mode: 4 } }), 'UNSUPPORTED', /"zfpy" is not supported \(no maintained JavaScript implementation of ZFP exists\)/],
    ['a filter as the compressor', text({ compressor: { id: 'delta', dtype: '<i4' } }), 'UNSUPPORTED', /list it in "filters"/],
    ['a checksum mid-chain before a filter', text({ filters: [{ id: 'crc32' }, { id: 'delta', dtype: '<i4' }] }), 'UNSUPPORTED', /follows a compressing filter/],
    ['a compressor without id', text({ compressor: { level: 1 } }), 'INVALID_METADATA', /numcodecs configuration/],
    ['an unknown filter', text({ filters: [{ id: 'sz3' }] }), 'UNSUPPORTED', SUPPORTED],
    ['fixedscaleoffset without scale', text({ filters: [{ id: 'fixedscaleoffset', offset: 0, dtype: '<i4' }] }), 'INVALID_METADATA', /"scale" is required/],
    ['a bad zlib level', text({ compressor: { id: 'zlib', level: 12 } }), 'INVALID_METADATA', /level/],
    ['an unknown blosc key', text({ compressor: { id: 'blosc', cname: 'lz4', speed: 1 } }), 'INVALID_METADATA', /"speed"/],
    ['delta of another dtype', text({ filters: [{ id: 'delta', dtype: '<i2' }] }), 'UNSUPPORTED', /delta/],
    ['an object array without codec', text({ dtype: '|O' }), 'INVALID_METADATA', /object codec/],
    ['a pickle object array', text({ dtype: '|O', filters: [{ id: 'pickle', protocol: 4 }] }), 'UNSUPPORTED', /"pickle".*vlen-utf8, vlen-bytes, vlen-array, json2, msgpack2, categorize/],
    ['json2 in another encoding', text({ dtype: '|O', filters: [{ id: 'json2', encoding: 'latin-1' }] }), 'UNSUPPORTED', /UTF-8 only/],
    ['a generic datetime', text({ dtype: '<M8' }), 'UNSUPPORTED', /unit/],
    ['an unknown datetime unit', text({ dtype: '<M8[fortnight]' }), 'UNSUPPORTED', /unit/],
    ['a string fill for ints', text({ fill_value: 'x' }), 'INVALID_METADATA', /fill_value/],
    ['a fill out of range', text({ dtype: '|u1', fill_value: 300 }), 'INVALID_METADATA', /out of range/],
    ['a non-base64 bytes fill', text({ dtype: '|S3', fill_value: 'a b' }), 'INVALID_METADATA', /base64/],
    ['a too long bytes fill', text({ dtype: '|S1', fill_value: 'YWI=' }), 'INVALID_METADATA', /at most 1 bytes/],
    ['a short record fill', text({ dtype: [['a', '<i2']], fill_value: 'AA==' }), 'INVALID_METADATA', /expected 2 bytes/],
    ['a too long unicode fill', text({ dtype: '<U2', fill_value: 'abc' }), 'INVALID_METADATA', /at most 2 characters/],
    ['a nested record', text({ dtype: [['a', [['b', '<i2']]]] }), 'UNSUPPORTED', /nested/],
  ])('%s', (_label, input, code, message) => {
    const err = failure(() => parseV2ArrayMetadata(input, 'x/.zarray'));
    expect(err.code).toBe(code);
    expect(err.message).toMatch(message);
    expect(err.where).toBe('x/.zarray');
  });
});

describe('dtypes', () => {
  it('maps NumPy typestrs to memory types, datetimes with their units to int64', () => {
    const cases: [string, string, number, string][] = [
      ['<f8', 'float64', 8, 'numeric'], ['>i2', 'int16', 2, 'numeric'], ['|b1', 'bool', 1, 'numeric'], ['<c8', 'complex64', 8, 'numeric'],
      ['|S12', 'r96', 12, 'bytes'], ['|V4', 'r32', 4, 'bytes'], ['<U5', 'string', 20, 'unicode'], ['<M8[ns]', 'int64', 8, 'datetime'],
      ['>m8[10s]', 'int64', 8, 'datetime'], ['<M8[D]', 'int64', 8, 'datetime'], ['<m8[us]', 'int64', 8, 'datetime'],
    ];
    for (const [typestr, name, size, kind] of cases) {
      const dt = parseNumpyDataType(typestr, '.zarray', V2_DIALECT);
      expect([dt.dataType.name, dt.itemSize, dt.kind], typestr).toEqual([name, size, kind]);
    }
  });

  it('lays out records with sub-array fields, packed', () => {
    const dt = parseNumpyDataType([['x', '<f8'], ['v', '>i2', [2, 3]], ['tag', '|S3']], '.zarray', V2_DIALECT);
    expect(dt.kind === 'structured' && dt.fields.map((f) => [f.name, f.offset, f.count])).toEqual([['x', 0, 1], ['v', 8, 6], ['tag', 20, 1]]);
    expect([dt.itemSize, dt.dataType.name]).toEqual([23, 'r184']);
  });

  it('reads object arrays through their object codec', () => {
    expect(parseV2ArrayMetadata(text({ dtype: '|O', filters: [{ id: 'vlen-utf8' }], fill_value: '' })).dtype.dataType.name).toBe('string');
    expect(parseV2ArrayMetadata(text({ dtype: '|O', filters: [{ id: 'vlen-bytes' }], fill_value: null })).dtype.dataType.name).toBe('binary');
  });
});

describe('fill values in zarr-python 2\'s forms', () => {
  const fill = (dtype: unknown, fillValue: unknown, filters: unknown = null) => parseV2ArrayMetadata(text({ dtype, fill_value: fillValue, filters })).fill;

  it('reads named floats, complex pairs, base64 bytes and records, strings, datetimes and null', () => {
    expect(Array.from(fill('<f4', 'NaN').value.memory as Float32Array)).toEqual([NaN]);
    expect(Array.from(fill('>f8', '-Infinity').value.memory as Float64Array)).toEqual([-Infinity]);
    expect(Array.from(fill('<c16', [1.5, 'Infinity']).value.memory as Float64Array)).toEqual([1.5, Infinity]);
    expect(Array.from(fill('|S4', 'YWI=').value.memory as Uint8Array)).toEqual([97, 98, 0, 0]);
    expect(Array.from(fill([['a', '<u2'], ['b', '|S1']], 'AQJj').value.memory as Uint8Array)).toEqual([1, 2, 99]);
    expect(fill('<U3', 'é!').value.memory).toEqual(['é!']);
    expect(Array.from(fill('<M8[ns]', 'NaT').value.memory as BigInt64Array)).toEqual([-(2n ** 63n)]);
    expect(Array.from(fill('|b1', 1).value.memory as Uint8Array)).toEqual([1]);
    const none = fill('<i4', null);
    expect([none.isNull, Array.from(none.value.memory as Int32Array)]).toEqual([true, [0]]);
  });

  it('treats object fills other than a vlen-utf8 string as undefined', () => {
    expect(fill('|O', '', [{ id: 'vlen-utf8' }]).isNull).toBe(false);
    expect(fill('|O', 0, [{ id: 'vlen-utf8' }]).isNull).toBe(true);
    expect(fill('|O', '', [{ id: 'vlen-bytes' }]).isNull).toBe(true);
  });
});

describe('writing documents as zarr-python 2 does', () => {
  it('writes .zarray with sorted keys, indent 4, Python floats and named floats', () => {
    const meta = parseV2ArrayMetadata(text({ dtype: '<f8', fill_value: 'NaN', shape: [3], chunks: [2], compressor: { id: 'zlib', level: 1 } }));
    expect(new TextDecoder().decode(encodeV2ArrayMetadata(meta))).toBe([
      '{', '    "chunks": [', '        2', '    ],', '    "compressor": {', '        "id": "zlib",', '        "level": 1', '    },',
      '    "dimension_separator": ".",', '    "dtype": "<f8",', '    "fill_value": "NaN",', '    "filters": null,', '    "order": "C",',
      '    "shape": [', '        3', '    ],', '    "zarr_format": 2', '}',
    ].join('\n'));
    const zero = parseV2ArrayMetadata(encodeV2ArrayMetadata(parseV2ArrayMetadata(text({ dtype: '<f4', fill_value: 0 }))));
    expect(new TextDecoder().decode(encodeV2ArrayMetadata(zero))).toContain('"fill_value": 0.0');
  });

  it('keeps unknown .zarray and .zgroup keys', () => {
    const meta = parseV2ArrayMetadata(text({ custom: { a: 1 } }));
    expect(parseV2ArrayMetadata(encodeV2ArrayMetadata(meta)).extra).toEqual({ custom: { a: 1 } });
    expect(parseV2GroupMetadata(encodeV2GroupMetadata({ note: 'x' }))).toEqual({ note: 'x' });
    expect(failure(() => parseV2GroupMetadata('{"zarr_format": 3}')).code).toBe('INVALID_METADATA');
  });

  it('creates with zarr-python 2\'s defaults: blosc lz4, fill 0 in the dtype\'s form', () => {
    const meta = createV2ArrayMetadata({ shape: [4], chunks: [2], dtype: 'float32' });
    expect([meta.dtype.json, meta.compressor, meta.fill.json, meta.order, meta.dimensionSeparator]).toEqual([
      '<f4', { id: 'blosc', cname: 'lz4', clevel: 5, shuffle: 1, blocksize: 0 }, 0, 'C', '.',
    ]);
    expect(createV2ArrayMetadata({ shape: [1], chunks: [1], dtype: '|S3' }).fill.json).toBe('AAAA');
    expect(createV2ArrayMetadata({ shape: [1], chunks: [1], dtype: '<U2' }).fill.json).toBe('');
    const strings = createV2ArrayMetadata({ shape: [1], chunks: [1], dtype: 'string', compressor: null });
    expect([strings.dtype.json, strings.filters, strings.fill.json]).toEqual(['|O', [{ id: 'vlen-utf8' }], null]);
  });

  it('round-trips .zmetadata', () => {
    const entries = new Map([['.zgroup', { zarr_format: 2 }], ['a/.zarray', JSON.parse(text({}))], ['a/.zattrs', { x: [1, 'y'] }]]);
    expect(parseZmetadata(encodeZmetadata(entries))).toEqual(entries);
    expect(failure(() => parseZmetadata(new TextEncoder().encode('{"zarr_consolidated_format": 2, "metadata": {}}'))).code).toBe('UNSUPPORTED');
  });
});

describe('the v3 view of a v2 array', () => {
  it('puts transpose, filters, bytes and the compressors with a v3 codec in the chain', () => {
    const delta = parseV2ArrayMetadata(text({ dtype: '<i4', filters: [{ id: 'delta', dtype: '<i4' }], compressor: { id: 'zstd', level: 3 } }));
    expect(v2ArrayView(delta, {}).v3.codecs.map((c) => c.name)).toEqual(['numcodecs.delta', 'bytes', 'zstd']);
    const bigDelta = parseV2ArrayMetadata(text({ dtype: '>i4', filters: [{ id: 'delta', dtype: '>i4', astype: '>i2' }] }));
    expect(v2ArrayView(bigDelta, {}).v3.codecs).toEqual([{ name: 'numcodecs.delta', configuration: { dtype: '>i4', astype: '>i2' } }, { name: 'bytes', configuration: { endian: 'big' } }]);
    const plain = parseV2ArrayMetadata(text({ dtype: '>i4', order: 'F', shape: [4, 4], chunks: [2, 2], compressor: { id: 'blosc', cname: 'lz4', clevel: 5, shuffle: -1, blocksize: 0 } }));
    const view = v2ArrayView(plain, {});
    expect(view.v3.codecs).toEqual([
      { name: 'transpose', configuration: { order: [1, 0] } }, { name: 'bytes', configuration: { endian: 'big' } },
      { name: 'blosc', configuration: { cname: 'lz4', clevel: 5, shuffle: 'shuffle', typesize: 4, blocksize: 0 } },
    ]);
    expect([view.chunkCodec.passThrough, view.v3.chunkKeyEncoding]).toEqual([true, { name: 'v2', separator: '.' }]);
  });

  it('runs zlib in the chain as numcodecs.zlib, and every compressor of a U<n> array outside it', () => {
    const zlib = v2ArrayView(parseV2ArrayMetadata(text({ compressor: { id: 'zlib', level: 1 } })), {});
    expect([zlib.chunkCodec.passThrough, zlib.chunkCodec.outer, zlib.v3.codecs.map((c) => c.name)]).toEqual([true, [], ['bytes', 'numcodecs.zlib']]);
    const unicode = v2ArrayView(parseV2ArrayMetadata(text({ dtype: '<U2', fill_value: '', compressor: { id: 'gzip', level: 1 } })), {});
    expect([unicode.chunkCodec.transcodes, unicode.chunkCodec.outer.map((c) => c.name), unicode.v3.codecs]).toEqual([true, ['gzip'], [{ name: 'vlen-utf8' }]]);
  });
});
