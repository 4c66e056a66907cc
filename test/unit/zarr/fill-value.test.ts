// Fill values in every JSON form the v3 spec allows, checked against hand-computed bit patterns.
import { describe, expect, it } from 'vitest';
import { isFloeError } from '../../../src/errors.ts';
import { parseDataType } from '../../../src/format/zarr/data-types.ts';
import { parseFillValue, type FillValueInput } from '../../../src/format/zarr/fill-value.ts';
import { parseNodeMetadata } from '../../../src/format/zarr/metadata.ts';

const bits32 = (...v: number[]): Uint8Array => new Uint8Array(new Uint32Array(v).buffer);
const bits64 = (...v: bigint[]): Uint8Array => new Uint8Array(new BigUint64Array(v).buffer);
const bytes = (data: ArrayLike<unknown> & { buffer?: ArrayBufferLike; byteOffset?: number; byteLength?: number }): Uint8Array =>
  new Uint8Array(data.buffer!, data.byteOffset, data.byteLength);

describe('parseFillValue', () => {
  it.each<[string, FillValueInput, Uint8Array, FillValueInput]>([
    ['bool', true, Uint8Array.of(1), true],
    ['bool', false, Uint8Array.of(0), false],
    ['int8', -128, Uint8Array.of(0x80), -128],
    ['uint32', 4294967295, bits32(0xffffffff), 4294967295],
    ['int64', -9223372036854775808n, bits64(0x8000000000000000n), -9223372036854775808n],
    ['uint64', 18446744073709551615n, bits64(0xffffffffffffffffn), 18446744073709551615n],
    ['int64', 5, bits64(5n), 5],
    ['float32', 1.5, bits32(0x3fc00000), 1.5],
    ['float32', 'NaN', bits32(0x7fc00000), 'NaN'],
    ['float32', 'Infinity', bits32(0x7f800000), 'Infinity'],
    ['float32', '-Infinity', bits32(0xff800000), '-Infinity'],
    ['float32', '0x7fc00001', bits32(0x7fc00001), '0x7fc00001'],
    ['float32', '0x7f800001', bits32(0x7f800001), '0x7f800001'], // a signalling NaN survives
    ['float32', '0x7fc00000', bits32(0x7fc00000), 'NaN'],
    ['float32', '0x3f800000', bits32(0x3f800000), 1],
    ['float32', -0, bits32(0x80000000), -0],
    ['float64', '0x7ff8000000000001', bits64(0x7ff8000000000001n), '0x7ff8000000000001'],
    ['float64', 'NaN', bits64(0x7ff8000000000000n), 'NaN'],
    ['float64', 0.1, bits64(0x3fb999999999999an), 0.1],
    ['float16', '0x3c00', bits32(0x3f800000), 1],
    ['float16', '0x7e00', bits32(0x7fc00000), 'NaN'],
    ['float16', '0x7e01', bits32(0x7fc02000), '0x7e01'],
    ['float16', 0.1, bits32(0x3dccc000), 0.0999755859375], // rounds to the nearest half
    ['complex64', [1, 'NaN'], bits32(0x3f800000, 0x7fc00000), [1, 'NaN']],
    ['complex128', ['-Infinity', '0x7ff0000000000001'], bits64(0xfff0000000000000n, 0x7ff0000000000001n), ['-Infinity', '0x7ff0000000000001']],
    ['r16', [1, 255], Uint8Array.of(1, 255), [1, 255]],
  ])('%s %s', (dtype, json, memory, canonical) => {
    const fill = parseFillValue(parseDataType(dtype), json);
    expect(bytes(fill.memory as Uint8Array)).toEqual(memory);
    expect(fill.json).toEqual(canonical);
    if (typeof canonical === 'number') expect(Object.is(fill.json, canonical)).toBe(true);
  });

  it('takes any string for the string data type', () => {
    expect(parseFillValue(parseDataType('string'), 'é').memory).toEqual(['é']);
  });

  it.each<[string, FillValueInput]>([
    ['bool', 0], ['bool', 'true'], ['int8', 128], ['int8', 1.5], ['uint8', -1], ['uint64', -1], ['int64', 9223372036854775808n],
    ['int32', 'NaN'], ['float32', 'nan'], ['float32', '0x7fc0'], ['float64', '0x7fc00000'], ['float16', '0x7e000'],
    ['float32', null], ['float32', [1]], ['complex64', 1], ['complex64', [1]], ['complex64', [1, 'x']], ['r16', [1]],
    ['r16', [1, 256]], ['r16', [1, -1]], ['string', 1],
  ])('refuses %s %s with INVALID_METADATA naming fill_value', (dtype, json) => {
    const doc = {
      zarr_format: 3, node_type: 'array', shape: [2], data_type: dtype, fill_value: json,
      chunk_grid: { name: 'regular', configuration: { chunk_shape: [2] } }, chunk_key_encoding: { name: 'default' }, codecs: [{ name: 'bytes' }],
    };
    let caught: unknown;
    try {
      parseNodeMetadata(JSON.stringify(doc, (_k, v: unknown) => (typeof v === 'bigint' ? `BIG${v}` : v)).replace(/"BIG(-?\d+)"/g, '$1'), 'x/zarr.json');
    } catch (err) {
      caught = err;
    }
    expect(isFloeError(caught, 'INVALID_METADATA')).toBe(true);
    expect((caught as Error).message).toContain('fill_value');
    expect((caught as Error).message).toContain('x/zarr.json');
  });
});
