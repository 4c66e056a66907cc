// Zarr v1 meta: validation with typed errors, and writing JSON the way zarr 1.x (Python) did.
import { describe, expect, it } from 'vitest';
import { documentWith, failureOf } from '../../support/error-code.ts';
import { parseNumpyDataType, V1_DIALECT } from '../../../src/format/numpy/dtype.ts';
import { encodeV1Metadata, parseV1Metadata } from '../../../src/format/zarr-v1/meta.ts';
import { PyFloat, pythonFloat, stringifyPythonJson } from '../../../src/format/numpy/python-json.ts';

const base = { chunks: [2], compression: 'zlib', compression_opts: 1, dtype: '<i4', fill_value: 0, order: 'C', shape: [5], zarr_format: 1 };
const text = (patch: Record<string, unknown>, drop?: string) => documentWith(base, patch, drop);

const failure = failureOf;

describe('parseV1Metadata refuses bad documents with typed errors naming the key', () => {
  it.each([
    ['malformed JSON', '{"shape": [1', 'INVALID_METADATA', /invalid JSON/],
    ['not an object', '[1]', 'INVALID_METADATA', /JSON object/],
    ['a missing field', text({}, 'order'), 'INVALID_METADATA', /"order" is required/],
    ['zarr_format 2', text({ zarr_format: 2 }), 'INVALID_METADATA', /must be 1/],
    ['negative shape', text({ shape: [-1] }), 'INVALID_METADATA', /"shape"/],
    ['zero chunk', text({ chunks: [0] }), 'INVALID_METADATA', /"chunks"/],
    ['rank mismatch', text({ chunks: [2, 2] }), 'INVALID_METADATA', /dimensions/],
    ['0-d array', text({ shape: [], chunks: [] }), 'UNSUPPORTED', /0-dimensional/],
    ['an unknown dtype', text({ dtype: '<M8' }), 'UNSUPPORTED', /no Floe equivalent/],
    ['a dtype without byte order', text({ dtype: 'f8' }), 'INVALID_METADATA', /typestr/],
    ['multi-byte with |', text({ dtype: '|i4' }), 'INVALID_METADATA', /byte order/],
    ['native byte order', text({ dtype: '=f8' }), 'UNSUPPORTED', /native/],
    ['an unknown compressor', text({ compression: 'snappy' }), 'UNSUPPORTED', /none, zlib, gzip, bz2, lzma, blosc/],
    ['a bad zlib level', text({ compression_opts: 12 }), 'INVALID_METADATA', /compression_opts/],
    ['a zlib level beyond 2^53', text({}).replace('"compression_opts":1', '"compression_opts":99999999999999999999'), 'INVALID_METADATA', /99999999999999999999/],
    ['order X', text({ order: 'X' }), 'INVALID_METADATA', /"order"/],
    ['a string fill for ints', text({ fill_value: 'x' }), 'INVALID_METADATA', /fill_value/],
    ['a fill out of range', text({ dtype: '|u1', fill_value: 300 }), 'INVALID_METADATA', /out of range/],
    ['a record fill', text({ dtype: [['a', '<i2']], fill_value: 0 }), 'INVALID_METADATA', /structured arrays take null/],
    ['a sub-array field', text({ dtype: [['a', '<i2', [2]]] }), 'UNSUPPORTED', /sub-array/],
    ['duplicate fields', text({ dtype: [['a', '<i2'], ['a', '<i4']] }), 'INVALID_METADATA', /unique/],
  ] as const)('%s', (_name, doc, code, message) => {
    const err = failure(() => parseV1Metadata(doc, 'store/meta'));
    expect(err.code).toBe(code);
    expect(err.message).toMatch(message);
    expect(err.where).toBe('store/meta');
  });
});

describe('v1 metadata values', () => {
  it('reads Python NaN / Infinity tokens and writes them back bare, floats with .0', () => {
    const meta = parseV1Metadata(text({ dtype: '<f8', fill_value: 'NaN' }).replace('"NaN"', 'NaN'));
    expect(Number.isNaN((meta.fill.value.memory as Float64Array)[0])).toBe(true);
    expect(Buffer.from(encodeV1Metadata(meta)).toString()).toContain('"fill_value": NaN,');
    const zero = parseV1Metadata(text({ dtype: '<f4', fill_value: 0 }));
    expect(Buffer.from(encodeV1Metadata(zero)).toString()).toContain('"fill_value": 0.0,');
    const inf = parseV1Metadata(text({ dtype: '>f8', fill_value: 0 }).replace('"fill_value":0', '"fill_value":-Infinity'));
    expect((inf.fill.value.memory as Float64Array)[0]).toBe(-Infinity);
  });

  it('keeps other keys (the spec allows them) and writes them sorted with the rest', () => {
    const meta = parseV1Metadata(text({ aaa: { note: 'kept' } }));
    expect(meta.extra).toEqual({ aaa: { note: 'kept' } });
    expect(Buffer.from(encodeV1Metadata(meta)).toString().startsWith('{\n    "aaa": {\n        "note": "kept"\n    },\n    "chunks"')).toBe(true);
  });

  it('fixed bytes, unicode and bool fills', () => {
    const s = parseV1Metadata(text({ dtype: '|S3', fill_value: 'ab' }));
    expect(Array.from(s.fill.value.memory as Uint8Array)).toEqual([97, 98, 0]);
    expect(parseV1Metadata(text({ dtype: '<U2', fill_value: 'é' })).fill.value.memory).toEqual(['é']);
    expect(parseV1Metadata(text({ dtype: '|b1', fill_value: true })).fill.value.json).toBe(true);
    expect((parseV1Metadata(text({ dtype: '|b1', fill_value: 1 })).fill.value.memory as Uint8Array)[0]).toBe(1);
    expect(parseV1Metadata(text({ fill_value: null })).fill.isNull).toBe(true);
  });
});

describe('dtypes', () => {
  it('maps typestrs to memory types', () => {
    const cases: [string, string, number][] = [
      ['<f8', 'float64', 8], ['>i2', 'int16', 2], ['|b1', 'bool', 1], ['|u1', 'uint8', 1], ['<f2', 'float16', 2],
      ['<c16', 'complex128', 16], ['|S12', 'r96', 12], ['|V4', 'r32', 4], ['<U5', 'string', 20], ['>u8', 'uint64', 8],
    ];
    for (const [typestr, name, size] of cases) {
      const dt = parseNumpyDataType(typestr, 'meta', V1_DIALECT);
      expect([dt.dataType.name, dt.itemSize]).toEqual([name, size]);
    }
  });

  it('lays structured fields out packed, in order', () => {
    const dt = parseNumpyDataType([['x', '<f8'], ['tag', '|S3'], ['n', '>u2']], 'meta', V1_DIALECT);
    expect(dt.kind).toBe('structured');
    expect(dt.itemSize).toBe(13);
    expect(dt.kind === 'structured' && dt.fields.map((f) => [f.name, f.offset])).toEqual([['x', 0], ['tag', 8], ['n', 11]]);
    expect(dt.dataType.name).toBe('r104');
  });
});

describe('Python-style JSON', () => {
  it('writes floats like Python repr', () => {
    const cases: [number, string][] = [[0, '0.0'], [1, '1.0'], [0.5, '0.5'], [1e-5, '1e-05'], [1e16, '1e+16'], [1e15, '1000000000000000.0'], [-2.5e-7, '-2.5e-07'], [-0, '-0.0']];
    for (const [v, s] of cases) expect(pythonFloat(v)).toBe(s);
  });

  it('sorts keys, indents by 4, escapes non-ASCII and has no trailing newline', () => {
    expect(stringifyPythonJson({ b: [1, new PyFloat(2)], a: 'é', c: {} })).toBe('{\n    "a": "\\u00e9",\n    "b": [\n        1,\n        2.0\n    ],\n    "c": {}\n}');
  });
});
