// Element values for an array: a seed expands into values that favour the awkward ones (NaN
// payloads, signed zeros, infinities, subnormal halves, the fill value itself, unicode strings).
import fc from '../fast-check.ts';
import type { Arbitrary } from 'fast-check';
import type { WriteValue } from '../../engine/array.ts';
import { checkedAt } from '../../engine/indexing.ts';
import { floatFromBits, halfBitsToFloatBits, quietHalf } from '../model/float-bits.ts';
import { intBounds, intMemory, type ElementValues, type TestDataType } from './data-types.ts';
import { pick, rng, u32 } from './seeded-random.ts';

export const STRINGS: readonly string[] = ['', 'a', 'zarr', 'é', '日本語', '🧊 ice', 'x'.repeat(40)];
export const F32_SPECIAL: readonly number[] = [0x7fc00000, 0x7fc00001, 0x7f800001, 0xffc00000, 0x7fbfffff, 0x7f800000, 0xff800000, 0x80000000, 0, 0x3f800000];
export const F64_SPECIAL: readonly bigint[] = [
  0x7ff8000000000000n, 0x7ff8000000000001n, 0x7ff0000000000001n, 0xfff8000000000000n, 0x7ff0000000000000n,
  0xfff0000000000000n, 0x8000000000000000n, 0n, 0x3ff0000000000000n,
];
export const HALF_SPECIAL: readonly number[] = [0x7e00, 0x7e01, 0xfe00, 0x7fff, 0x7c00, 0xfc00, 0x8000, 0, 0x0001, 0x03ff, 0x7bff, 0x3c00];

function floatLane(d: TestDataType, r: () => number, out: DataView, at: number): void {
  const width = d.name === 'float16' ? 2 : d.laneBytes;
  if (width === 2) {
    const h = r() < 0.2 ? pick(r, HALF_SPECIAL) : u32(r) & 0xffff;
    out.setUint32(at, halfBitsToFloatBits(quietHalf(h)), true);
  } else if (width === 4) {
    const roll = r();
    if (roll < 0.2) out.setUint32(at, pick(r, F32_SPECIAL), true);
    else if (roll < 0.4) out.setFloat32(at, Math.floor(r() * 200) - 100, true);
    else out.setUint32(at, u32(r), true);
  } else {
    const roll = r();
    if (roll < 0.2) out.setBigUint64(at, pick(r, F64_SPECIAL), true);
    else if (roll < 0.4) out.setFloat64(at, Math.floor(r() * 200) - 100, true);
    else out.setBigUint64(at, (BigInt(u32(r)) << 32n) | BigInt(u32(r)), true);
  }
}

/** `n` elements from `seed`: raw memory bytes (or strings); about a third equal the fill value. */
export function randomElements(d: TestDataType, fill: Uint8Array | readonly string[], n: number, seed: number): ElementValues {
  const r = rng(seed);
  const fillString = d.kind === 'string' ? checkedAt(fill as readonly string[], 0, 'INVALID_ARGUMENT', 'string fill value') : '';
  if (d.kind === 'string') return Array.from({ length: n }, () => (r() < 0.3 ? fillString : pick(r, STRINGS)));
  const out = new Uint8Array(n * d.memBytes);
  const view = new DataView(out.buffer);
  for (let i = 0; i < n; i++) {
    const at = i * d.memBytes;
    if (r() < 0.3) out.set(fill as Uint8Array, at);
    else if (d.kind === 'bool') out[at] = r() < 0.5 ? 1 : 0;
    else if (d.kind === 'float' || d.kind === 'complex') {
      for (let lane = 0; lane < d.memBytes / d.laneBytes; lane++) floatLane(d, r, view, at + lane * d.laneBytes);
    } else for (let b = 0; b < d.memBytes; b++) out[at + b] = u32(r) & 0xff;
  }
  return out;
}

/** Chunk data for one chunk (or any `n` elements): shrinks to the values of seed 0. */
export function chunkDataArb(d: TestDataType, fill: Uint8Array | readonly string[], n: number): Arbitrary<ElementValues> {
  return fc.nat().map((seed) => randomElements(d, fill, n, seed));
}

/** A scalar to write and its memory bytes; undefined where the API takes no scalar (complex, raw). */
export function randomScalar(d: TestDataType, seed: number): { value: WriteValue; memory: ElementValues } | undefined {
  const r = rng(seed);
  const bytes = (write: (v: DataView) => void): Uint8Array => {
    const out = new Uint8Array(d.memBytes);
    write(new DataView(out.buffer));
    return out;
  };
  switch (d.kind) {
    case 'bool': {
      const b = r() < 0.5;
      return { value: b, memory: Uint8Array.of(b ? 1 : 0) };
    }
    case 'int':
    case 'uint': {
      const [min, max] = intBounds(d.name);
      const v = min + (((BigInt(u32(r)) << 32n) | BigInt(u32(r))) % (max - min + 1n));
      return { value: d.memBytes === 8 ? v : Number(v), memory: intMemory(d.name, v) };
    }
    case 'float': {
      if (d.name === 'float16') {
        // Half-exact values only: the model does not round; NaN is JS's one NaN.
        const h = r() < 0.2 ? 0x7e00 : u32(r) & 0x7bff;
        return { value: h === 0x7e00 ? NaN : floatFromBits(halfBitsToFloatBits(h)), memory: bytes((v) => v.setUint32(0, halfBitsToFloatBits(h), true)) };
      }
      const x = pick(r, [NaN, Infinity, -Infinity, -0, 0.1, 1e300, -2.5, Math.floor(r() * 1000)]);
      return { value: x, memory: bytes((v) => (d.memBytes === 4 ? v.setFloat32(0, x, true) : v.setFloat64(0, x, true))) };
    }
    case 'string': {
      const s = pick(r, STRINGS);
      return { value: s, memory: [s] };
    }
    default:
      return undefined;
  }
}
