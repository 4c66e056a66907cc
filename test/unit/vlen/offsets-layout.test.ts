// The ZEP layout byte by byte, written out by hand from the ZEP's reference pseudo-code.
import { describe, expect, it } from 'vitest';
import { buildCodecChain } from '../../../src/format/codecs/pipeline.ts';
import { parseDataType } from '../../../src/format/zarr/data-types.ts';
import { defaultFillValue } from '../../../src/format/zarr/fill-value.ts';
import { isFloeError } from '../../../src/errors.ts';

function chain(dataType: string, shape: number[], codecs: object[] = [{ name: 'bytes' }]) {
  const dt = parseDataType(dataType);
  return buildCodecChain(codecs as never, { shape, dataType: dt, fillValue: defaultFillValue(dt) });
}

/** offsets (int32 LE) | zero padding to 64 | data, exactly as the ZEP's encoder builds it. */
function zepChunk(values: string[], width: 4 | 8): Uint8Array {
  const data = Buffer.from(values.join(''), 'utf8');
  const offsets = [0];
  for (const v of values) offsets.push(offsets.at(-1)! + Buffer.byteLength(v, 'utf8'));
  const offsetBytes = Buffer.alloc(offsets.length * width);
  offsets.forEach((o, i) => (width === 4 ? offsetBytes.writeInt32LE(o, i * 4) : offsetBytes.writeBigInt64LE(BigInt(o), i * 8)));
  const start = Math.ceil(offsetBytes.length / 64) * 64;
  const out = Buffer.alloc(start + data.length);
  offsetBytes.copy(out, 0);
  data.copy(out, start);
  return new Uint8Array(out);
}

describe('ZEP string layout through the bytes codec', () => {
  const values = ['the', 'quick', '', 'brown', 'fox', 'naïve ☃ 𝄞'];

  it('encodes string chunks exactly like the ZEP encoder', () => {
    const c = chain('string', [2, 3]);
    const bytes = c.encode({ data: [...values], shape: [2, 3], stride: [3, 1] });
    expect(Buffer.from(bytes).equals(Buffer.from(zepChunk(values, 4)))).toBe(true);
    expect(bytes.length).toBe(64 + Buffer.byteLength(values.join('')));
  });

  it('decodes it back, and large_string uses int64 offsets', () => {
    expect(chain('string', [6]).decode(zepChunk(values, 4)).data).toEqual(values);
    const wide = zepChunk(values, 8);
    expect(chain('large_string', [6]).decode(wide).data).toEqual(values);
    expect(Buffer.from(chain('large_string', [6]).encode({ data: [...values], shape: [6], stride: [1] })).equals(Buffer.from(wide))).toBe(true);
  });

  it('pads to a second 64-byte block when the offsets need it (16 elements = 68 offset bytes)', () => {
    const many = Array.from({ length: 16 }, (_, i) => 'x'.repeat(i));
    const bytes = chain('string', [16]).encode({ data: many, shape: [16], stride: [1] });
    expect(bytes.subarray(68, 128).every((b) => b === 0)).toBe(true);
    expect(Buffer.from(bytes.subarray(128)).toString()).toBe(many.join(''));
  });

  it('binary chunks hold the bytes as they are', () => {
    const items = [new Uint8Array([0, 255, 1]), new Uint8Array(0), new Uint8Array([7])];
    const c = chain('binary', [3]);
    const bytes = c.encode({ data: items, shape: [3], stride: [1] });
    expect(Array.from(bytes.subarray(0, 16))).toEqual([0, 0, 0, 0, 3, 0, 0, 0, 3, 0, 0, 0, 4, 0, 0, 0]);
    expect(Array.from(bytes.subarray(64))).toEqual([0, 255, 1, 7]);
    expect((c.decode(bytes).data as Uint8Array[]).map((b) => Array.from(b))).toEqual([[0, 255, 1], [], [7]]);
  });

  it('a bytes codec asking for big-endian offsets is refused', () => {
    expect(() => chain('string', [2], [{ name: 'bytes', configuration: { endian: 'big' } }])).toThrow(/little-endian/);
  });
});

describe('damaged ZEP chunks fail with CORRUPT_OBJECT', () => {
  const good = zepChunk(['ab', 'cd'], 4);
  const cases: [string, (b: Buffer) => Uint8Array, RegExp][] = [
    ['truncated before the data', (b) => b.subarray(0, 40), /cannot hold/],
    ['an offset past the data', (b) => (b.writeInt32LE(99, 8), b), /outside/],
    ['offsets running backwards', (b) => (b.writeInt32LE(3, 4), b.writeInt32LE(1, 8), b), /backwards|outside/],
    ['a negative offset', (b) => (b.writeInt32LE(-1, 0), b), /outside/],
    ['invalid UTF-8', (b) => (b[64] = 0xff, b), /UTF-8/],
  ];
  it.each(cases)('%s', (_name, damage, message) => {
    const bytes = damage(Buffer.from(good));
    try {
      chain('string', [2]).decode(bytes);
      expect.unreachable();
    } catch (err) {
      expect(isFloeError(err, 'CORRUPT_OBJECT')).toBe(true);
      expect((err as Error).message).toMatch(message);
    }
  });
});
