// Issue 28: float16 reads as Float32Array on every Node, and as Float16Array when asked where the
// runtime has one (Node 24+); asked where it has none (Node 20, 22), the read fails UNSUPPORTED.
// The "has one" cases run for real on Node 24+; on older Nodes a stand-in global Float16Array
// (a Float32Array subclass) checks the plumbing, and the real one is the CI matrix's Node 26 run.
import { describe, expect, it } from 'vitest';
import { isFloeError, type ErrorCode } from '../../../src/errors.ts';
import { createArray, openStore, type Float16Data } from '../../../src/index.ts';
import { hasFloat16Array } from '../../../src/format/zarr/float16-array.ts';

const NATIVE = typeof (globalThis as { Float16Array?: unknown }).Float16Array === 'function';
const HALVES = [0, 1, -2.5, 65504, 2 ** -24, Infinity, -Infinity];

async function float16Array() {
  const array = await createArray(openStore(':memory:'), '/h', { shape: [7], chunkShape: [4], dataType: 'float16', fillValue: 0 });
  await array.set(undefined, Float32Array.from(HALVES));
  return array;
}

async function codeOf(run: () => Promise<unknown>): Promise<ErrorCode | 'none'> {
  try {
    await run();
    return 'none';
  } catch (err) {
    if (isFloeError(err)) return err.code;
    throw err;
  }
}

describe('float16 representation', () => {
  it('is a Float32Array by default and when asked for, on every Node', async () => {
    const array = await float16Array();
    for (const options of [undefined, { float16: 'Float32Array' as const }]) {
      const { data } = await array.get(undefined, options);
      expect(data).toBeInstanceOf(Float32Array);
      expect(Array.from(data as Float32Array)).toEqual(HALVES);
    }
  });

  it('detection follows the global, not the version', () => {
    expect(hasFloat16Array()).toBe(NATIVE);
  });

  it.skipIf(NATIVE)('asked for as Float16Array where the runtime has none: UNSUPPORTED, saying what to do', async () => {
    const array = await float16Array();
    await expect(array.get(undefined, { float16: 'Float16Array' })).rejects.toThrow(/has no Float16Array \(Node 24 and newer have it\); leave the option out/);
    expect(await codeOf(() => array.get(undefined, { float16: 'Float16Array' }))).toBe('UNSUPPORTED');
    // Refused on any array, so a program finds out on its first read, whatever it reads first.
    const ints = await createArray(openStore(':memory:'), '/i', { shape: [2], chunkShape: [2], dataType: 'int32', fillValue: 0 });
    expect(await codeOf(() => ints.get(undefined, { float16: 'Float16Array' }))).toBe('UNSUPPORTED');
  });

  it('refuses an unknown representation with INVALID_ARGUMENT', async () => {
    const array = await float16Array();
    expect(await codeOf(() => array.get(undefined, { float16: 'float16' as never }))).toBe('INVALID_ARGUMENT');
  });

  describe('where the runtime has Float16Array', () => {
    // Stand-in for Node < 24: same element values (every half is a float32), its own class.
    class StandIn extends Float32Array {}

    it(`${NATIVE ? 'Node\'s own' : 'a stand-in'} Float16Array comes out on request, with the same values; set takes one back`, async () => {
      if (!NATIVE) (globalThis as { Float16Array?: unknown }).Float16Array = StandIn;
      const Half = (globalThis as unknown as { Float16Array: new (n: number | ArrayLike<number>) => Float16Data }).Float16Array;
      try {
        const array = await float16Array();
        const { data, shape } = await array.get(undefined, { float16: 'Float16Array' });
        expect(data).toBeInstanceOf(Half);
        expect(shape).toEqual([7]);
        expect(Array.from(data as ArrayLike<number>)).toEqual(HALVES);
        await array.set(undefined, new Half([0.5, 0.25, 0.125, 1, 2, 3, 4]));
        expect(Array.from((await array.get(undefined)).data as Float32Array)).toEqual([0.5, 0.25, 0.125, 1, 2, 3, 4]);
        // Other types are untouched; `out` names its own type.
        const ints = await createArray(openStore(':memory:'), '/i', { shape: [2], chunkShape: [2], dataType: 'int32', fillValue: 3 });
        expect((await ints.get(undefined, { float16: 'Float16Array' })).data).toBeInstanceOf(Int32Array);
        expect(await codeOf(() => array.get(undefined, { float16: 'Float16Array', out: new Float32Array(7) }))).toBe('INVALID_ARGUMENT');
      } finally {
        if (!NATIVE) delete (globalThis as { Float16Array?: unknown }).Float16Array;
      }
    });
  });
});
