// Binary data types and their fill values.
import { describe, expect, it } from 'vitest';
import { parseDataType } from '../../../src/format/zarr/data-types.ts';
import { defaultFillValue, parseFillValue } from '../../../src/format/zarr/fill-value.ts';
import { allEqual, fillElements } from '../../../src/format/zarr/ndarray.ts';

describe('binary data types', () => {
  it('all names resolve to Uint8Array[] memory and keep the name they were given', () => {
    for (const name of ['binary', 'bytes', 'variable_length_bytes', 'large_binary']) {
      const dt = parseDataType(name);
      expect(dt.name).toBe(name);
      expect(dt.kind).toBe('binary');
      const mem = dt.allocate(2);
      expect(Array.isArray(mem) && mem.every((b) => b instanceof Uint8Array && b.length === 0)).toBe(true);
    }
    expect(parseDataType('large_string').kind).toBe('string');
  });

  it('fill values are base64 in JSON (zarr-python) and accept byte lists and Uint8Arrays', () => {
    const dt = parseDataType('binary');
    expect(defaultFillValue(dt).json).toBe('');
    const f = parseFillValue(dt, 'AAH/');
    expect(Array.from((f.memory as Uint8Array[])[0]!)).toEqual([0, 1, 255]);
    expect(parseFillValue(dt, [0, 1, 255]).json).toBe('AAH/');
    expect(parseFillValue(dt, new Uint8Array([104, 105])).json).toBe('aGk=');
    expect(() => parseFillValue(dt, 'not base64!')).toThrow(/base64/);
    expect(() => parseFillValue(dt, [256])).toThrow(/byte values/);
    expect(() => parseFillValue(dt, 3)).toThrow(/base64/);
  });

  it('allEqual compares binary elements by content, fillElements fills them', () => {
    const fill = parseFillValue(parseDataType('binary'), [1, 2]).memory;
    const data: Uint8Array[] = [new Uint8Array([1, 2]), new Uint8Array([1, 2])];
    expect(allEqual(data, fill)).toBe(true);
    data[1] = new Uint8Array([1, 3]);
    expect(allEqual(data, fill)).toBe(false);
    fillElements(data, fill, 1, 1, 1);
    expect(allEqual(data, fill)).toBe(true);
  });
});
