// Range batching (issue 30's coalescing of HTTP reads): bounded ranged gets of one key arriving
// together become fewer requests, and every caller still gets exactly what an unbatched get gives.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isFloeError } from '../../src/errors.ts';
import { MemoryStorage } from '../../src/engine/storage/memory.ts';
import { linkAware, withRangeCoalescing } from '../../src/engine/storage/range-batching.ts';
import type { ByteRange, ObjectStorage } from '../../src/engine/storage/types.ts';
import { wrapStorage } from '../../src/engine/storage/wrap.ts';

const RUNS = Number(process.env.FLOE_RANGE_BATCH_RUNS ?? 100);

/** The storage with every `get` it receives recorded. */
function counted(inner: ObjectStorage): { storage: ObjectStorage; gets: { key: string; range: ByteRange | undefined }[] } {
  const gets: { key: string; range: ByteRange | undefined }[] = [];
  const storage: ObjectStorage = { ...wrapStorage(inner, (_call, run) => run()), get: (key, range, options) => (gets.push({ key, range }), inner.get(key, range, options)) };
  return { storage, gets };
}

async function seeded(): Promise<MemoryStorage> {
  const memory = new MemoryStorage();
  await memory.put('a', Uint8Array.from({ length: 1000 }, (_, i) => i % 251));
  await memory.put('b', Uint8Array.from({ length: 100 }, (_, i) => 255 - i));
  return memory;
}

describe('withRangeCoalescing', () => {
  it('merges adjacent ranges of one key into one request, per key, and slices each answer', async () => {
    const memory = await seeded();
    const { storage, gets } = counted(memory);
    const batched = withRangeCoalescing(storage);
    const results = await Promise.all([
      batched.get('a', { offset: 0, length: 10 }),
      batched.get('a', { offset: 10, length: 20 }),
      batched.get('a', { offset: 30, length: 5 }),
      batched.get('b', { offset: 5, length: 5 }),
      batched.get('a', { offset: 900, length: 50 }), // far: its own request (the overread bound)
    ]);
    expect(gets.map((g) => `${g.key} ${JSON.stringify(g.range)}`).sort()).toEqual([
      'a {"offset":0,"length":35}',
      'a {"offset":900,"length":50}',
      'b {"offset":5,"length":5}',
    ]);
    expect(Array.from(results[1]!.bytes)).toEqual(Array.from((await memory.get('a', { offset: 10, length: 20 }))!.bytes));
    expect(Array.from(results[3]!.bytes)).toEqual(Array.from((await memory.get('b', { offset: 5, length: 5 }))!.bytes));
  });

  it('bridges any gap that takes less than a round trip to send once the link is measured', async () => {
    const memory = await seeded();
    const { storage, gets } = counted(memory);
    let link: { roundTripMs: number; bytesPerMs: number } | undefined;
    const batched = withRangeCoalescing(storage, {}, { link: () => link });
    const far = () => Promise.all([batched.get('a', { offset: 0, length: 10 }), batched.get('a', { offset: 900, length: 10 })]);
    await far();
    expect(gets).toHaveLength(2); // unmeasured: the 5% overread bound keeps them apart
    link = { roundTripMs: 20, bytesPerMs: 100 }; // 2,000 bytes in a round trip
    gets.length = 0;
    const [a, b] = await far();
    expect(gets.map((g) => g.range)).toEqual([{ offset: 0, length: 910 }]);
    expect(Array.from(b!.bytes)).toEqual(Array.from((await memory.get('a', { offset: 900, length: 10 }))!.bytes));
    expect(a!.bytes).toHaveLength(10);
    expect(linkAware({ gapBytes: 0 }, link)).toEqual({ gapBytes: 0 }); // the caller's choice stands
    expect(linkAware({}, { roundTripMs: 1000, bytesPerMs: 1e9 }).maxSpanBytes).toBe(16 * 1024 * 1024); // a fast link still makes bounded requests
    expect(linkAware({}, { roundTripMs: 1, bytesPerMs: 1 }).gapBytes).toBe(64 * 1024); // never below the default
  });

  it('passes whole, open-ended and suffix reads through unbatched', async () => {
    const { storage, gets } = counted(await seeded());
    const batched = withRangeCoalescing(storage);
    await Promise.all([batched.get('a'), batched.get('a', { offset: 5 }), batched.get('a', { suffixLength: 5 })]);
    expect(gets).toHaveLength(3);
  });

  it('answers every caller what an unbatched get answers, for any set of concurrent reads', async () => {
    const memory = await seeded();
    const rangeArb = fc.record({ offset: fc.nat(1100), length: fc.integer({ min: 1, max: 300 }) });
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(fc.constantFrom('a', 'b', 'missing'), rangeArb), { minLength: 1, maxLength: 12 }), async (reads) => {
        const batched = withRangeCoalescing(memory, { gapBytes: 100, maxOverread: 0.5 });
        const got = await Promise.all(reads.map(([key, range]) => batched.get(key, range)));
        for (const [i, [key, range]] of reads.entries()) {
          const expected = await memory.get(key, range);
          expect(got[i] === null).toBe(expected === null);
          if (expected) expect(Array.from(got[i]!.bytes)).toEqual(Array.from(expected.bytes));
        }
      }),
      { numRuns: RUNS },
    );
  });

  it('gives a failure to every caller of its span, and lets one caller abort alone', async () => {
    const memory = await seeded();
    let fail = true;
    const failing: ObjectStorage = { ...memory, kind: 'memory', get: (key, range, options) => (fail ? Promise.reject(new Error('boom')) : memory.get(key, range, options)), head: memory.head.bind(memory) } as ObjectStorage;
    const batched = withRangeCoalescing(failing);
    const both = await Promise.allSettled([batched.get('a', { offset: 0, length: 4 }), batched.get('a', { offset: 4, length: 4 })]);
    expect(both.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    fail = false;
    const controller = new AbortController();
    const aborted = batched.get('a', { offset: 0, length: 4 }, { signal: controller.signal });
    const kept = batched.get('a', { offset: 4, length: 4 });
    controller.abort();
    const err = await aborted.then(() => undefined, (e: unknown) => e);
    expect(isFloeError(err, 'ABORTED')).toBe(true);
    expect(Array.from((await kept)!.bytes)).toEqual([4, 5, 6, 7]);
  });
});
