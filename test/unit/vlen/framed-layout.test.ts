// zarr-python 3's framed layout: vlen-utf8 for strings, vlen-bytes for binary.
import { describe, expect, it } from 'vitest';
import { buildCodecChain } from '../../../src/format/codecs/pipeline.ts';
import { parseDataType } from '../../../src/format/zarr/data-types.ts';
import { defaultFillValue } from '../../../src/format/zarr/fill-value.ts';
import { isFloeError } from '../../../src/errors.ts';

function chain(dataType: string, codec: string, shape: number[]) {
  const dt = parseDataType(dataType);
  return buildCodecChain([{ name: codec }], { shape, dataType: dt, fillValue: defaultFillValue(dt) });
}

describe('vlen-bytes', () => {
  it('frames each element as u32le length + bytes after a u32le count', () => {
    const c = chain('variable_length_bytes', 'vlen-bytes', [2]);
    const bytes = c.encode({ data: [new Uint8Array([9, 8]), new Uint8Array(0)], shape: [2], stride: [1] });
    expect(Array.from(bytes)).toEqual([2, 0, 0, 0, 2, 0, 0, 0, 9, 8, 0, 0, 0, 0]);
    expect((c.decode(bytes).data as Uint8Array[]).map((b) => Array.from(b))).toEqual([[9, 8], []]);
  });

  it('decoded elements are copies, not views into the chunk', () => {
    const bytes = new Uint8Array([1, 0, 0, 0, 1, 0, 0, 0, 42]);
    const out = chain('bytes', 'vlen-bytes', [1]).decode(bytes).data as Uint8Array[];
    bytes[8] = 0;
    expect(out[0]![0]).toBe(42);
  });

  it('refuses a numeric data type and wrongly typed elements', () => {
    expect(() => chain('int32', 'vlen-bytes', [1])).toThrow(/variable-length/);
    const c = chain('binary', 'vlen-bytes', [1]);
    expect(() => c.encode({ data: ['text'] as never, shape: [1], stride: [1] })).toThrow(/must be a Uint8Array/);
    const s = chain('string', 'vlen-utf8', [1]);
    expect(() => s.encode({ data: [undefined] as never, shape: [1], stride: [1] })).toThrow(/must be a string, got undefined/);
  });

  it.each([
    ['a short count', [1, 0, 0], /4-byte count/],
    ['a wrong count', [3, 0, 0, 0], /holds 3 elements, expected 1/],
    ['a length past the end', [1, 0, 0, 0, 9, 0, 0, 0, 1], /runs past the end/],
    ['trailing bytes', [1, 0, 0, 0, 0, 0, 0, 0, 5], /trailing/],
  ])('%s is CORRUPT_OBJECT', (_n, bytes, message) => {
    try {
      chain('binary', 'vlen-bytes', [1]).decode(new Uint8Array(bytes as number[]));
      expect.unreachable();
    } catch (err) {
      expect(isFloeError(err, 'CORRUPT_OBJECT')).toBe(true);
      expect((err as Error).message).toMatch(message as RegExp);
    }
  });
});

describe('vlen-utf8', () => {
  it('rejects invalid UTF-8 instead of replacing it', () => {
    const bytes = new Uint8Array([1, 0, 0, 0, 2, 0, 0, 0, 0xc3, 0x28]);
    expect(() => chain('string', 'vlen-utf8', [1]).decode(bytes)).toThrow(/not valid UTF-8/);
  });
});
