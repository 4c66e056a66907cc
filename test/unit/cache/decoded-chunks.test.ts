// The decoded-chunk cache alone: one load for concurrent callers, one caller's abort failing
// nobody else, invalidation detaching a load in flight, and buffer reuse that never touches a
// chunk handed out to keep.
import { describe, expect, it } from 'vitest';
import { DecodedChunkCache, type LoadedChunk } from '../../../src/cache/decoded-chunks.ts';
import { isFloeError } from '../../../src/errors.ts';
import type { NdArray } from '../../../src/format/zarr/ndarray.ts';

/** A load that waits until `release` is called; `signal` is the load's own. */
function gatedLoad(cache: DecodedChunkCache, value: number, size = 8) {
  const gate = { calls: 0, signal: undefined as AbortSignal | undefined, release: () => {} };
  const load = (signal: AbortSignal) => {
    gate.calls++;
    gate.signal = signal;
    return new Promise<LoadedChunk>((resolve) => {
      gate.release = () => {
        const own = cache.takeBuffer(size);
        resolve({ chunk: { data: own.subarray(0, size).fill(value), shape: [size], stride: [1] }, own });
      };
    });
  };
  return { gate, load };
}

const firstOf = (sink: number[]) => (chunk: NdArray) => sink.push((chunk.data as Uint8Array)[0]!);
const abortError = () => new Error('aborted');

describe('DecodedChunkCache', () => {
  it('runs one load for concurrent callers and lends the chunk to each, then serves hits', async () => {
    const cache = new DecodedChunkCache(1024);
    const { gate, load } = gatedLoad(cache, 7);
    const seen: number[] = [];
    const calls = Array.from({ length: 10 }, () => cache.lend('k', load, firstOf(seen), { admit: true }));
    gate.release();
    expect(await Promise.all(calls)).toEqual(Array(10).fill(true));
    expect(gate.calls).toBe(1);
    expect(seen).toEqual(Array(10).fill(7));
    expect(await cache.lend('k', load, firstOf(seen), { admit: false })).toBe(true);
    expect(cache.stats()).toMatchObject({ loads: 1, joined: 9, hits: 1, entries: 1, bytes: 8 });
  });

  it("one caller's abort rejects that caller only; the load goes on for the others", async () => {
    const cache = new DecodedChunkCache(1024);
    const { gate, load } = gatedLoad(cache, 3);
    const quitter = new AbortController();
    const seen: number[] = [];
    const stays = cache.lend('k', load, firstOf(seen), { admit: true });
    const leaves = cache.lend('k', load, firstOf(seen), { admit: true, signal: quitter.signal, abortError });
    const alsoStays = cache.lend('k', load, firstOf(seen), { admit: true, signal: new AbortController().signal, abortError });
    quitter.abort();
    await expect(leaves).rejects.toThrow('aborted');
    expect(gate.signal?.aborted).toBe(false);
    gate.release();
    expect(await stays).toBe(true);
    expect(await alsoStays).toBe(true);
    expect(seen).toEqual([3, 3]);
  });

  it('stops the load when every caller gave up, and the next caller loads afresh', async () => {
    const cache = new DecodedChunkCache(1024);
    const first = gatedLoad(cache, 1);
    const a = new AbortController();
    const b = new AbortController();
    const pa = cache.lend('k', first.load, () => {}, { admit: true, signal: a.signal, abortError });
    const pb = cache.lend('k', first.load, () => {}, { admit: true, signal: b.signal, abortError });
    a.abort();
    b.abort();
    await expect(pa).rejects.toThrow('aborted');
    await expect(pb).rejects.toThrow('aborted');
    expect(first.gate.signal?.aborted).toBe(true);
    const second = gatedLoad(cache, 2);
    const seen: number[] = [];
    const pc = cache.lend('k', second.load, firstOf(seen), { admit: true });
    first.gate.release(); // the abandoned load finishing late changes nothing
    second.gate.release();
    expect(await pc).toBe(true);
    expect(seen).toEqual([2]);
    expect(second.gate.calls).toBe(1);
  });

  it('a load in flight when its key is invalidated is lent to its callers but never kept', async () => {
    const cache = new DecodedChunkCache(1024);
    const old = gatedLoad(cache, 1);
    const seen: number[] = [];
    const before = cache.lend('k', old.load, firstOf(seen), { admit: true });
    cache.invalidate('k'); // a write happened meanwhile
    const fresh = gatedLoad(cache, 2);
    const after = cache.lend('k', fresh.load, firstOf(seen), { admit: true });
    old.gate.release();
    fresh.gate.release();
    await Promise.all([before, after]);
    expect(seen).toEqual([1, 2]);
    const again: number[] = [];
    await cache.lend('k', fresh.load, firstOf(again), { admit: true });
    expect(again).toEqual([2]);
    expect(fresh.gate.calls).toBe(1);
  });

  it('invalidating a key forgets its inner-chunk ranges too, and a prefix everything under it', async () => {
    const cache = new DecodedChunkCache(1024);
    for (const key of ['s:a/c/0', 's:a/c/0#0+10', 's:a/c/01', 's:b/c/0']) {
      const { gate, load } = gatedLoad(cache, 1);
      const p = cache.lend(key, load, () => {}, { admit: true });
      gate.release();
      await p;
    }
    const cached = (key: string) => cache.lend(key, () => Promise.reject(new Error('no load')), () => {}, { admit: false });
    cache.invalidate('s:a/c/0');
    expect(await cached('s:a/c/0')).toBeUndefined();
    expect(await cached('s:a/c/0#0+10')).toBeUndefined();
    expect(await cached('s:a/c/01')).toBe(true);
    cache.invalidatePrefix('s:a/');
    expect(await cached('s:a/c/01')).toBeUndefined();
    expect(await cached('s:b/c/0')).toBe(true);
  });

  it('reuses an evicted chunk buffer for the next load, never one handed out to keep', async () => {
    const cache = new DecodedChunkCache(64); // entries of at most 8 bytes, 8 of them
    const fill = async (key: string, value: number) => {
      const { gate, load } = gatedLoad(cache, value);
      const p = cache.lend(key, load, () => {}, { admit: true });
      gate.release();
      await p;
    };
    await fill('kept', 200); // a value no other load writes
    const kept = cache.get('kept')!;
    cache.invalidate('kept'); // its buffer is the caller's now
    for (let i = 0; i < 12; i++) await fill(`k${i}`, i); // evicts 4 entries, reusing their buffers
    expect(Array.from(kept.data as Uint8Array)).toEqual(Array(8).fill(200));
    expect(cache.stats().reusedBuffers).toBeGreaterThan(0);
    expect(cache.stats().evictions).toBe(4);
    expect(cache.stats().bytes).toBeLessThanOrEqual(64);
  });

  it('without admit a miss loads nothing; a chunk over an eighth of the budget is lent, not kept', async () => {
    const cache = new DecodedChunkCache(64);
    const { gate, load } = gatedLoad(cache, 5, 9);
    expect(await cache.lend('k', load, () => {}, { admit: false })).toBeUndefined();
    expect(gate.calls).toBe(0);
    const seen: number[] = [];
    const p = cache.lend('k', load, firstOf(seen), { admit: true });
    gate.release();
    expect(await p).toBe(true);
    expect(seen).toEqual([5]);
    expect(cache.stats().entries).toBe(0);
  });

  it('refuses a budget that is not a positive number with INVALID_ARGUMENT', () => {
    for (const bad of [0, -1, Number.NaN, Number.POSITIVE_INFINITY]) {
      let err: unknown;
      try {
        new DecodedChunkCache(bad);
      } catch (e) {
        err = e;
      }
      expect(isFloeError(err, 'INVALID_ARGUMENT')).toBe(true);
    }
  });
});
