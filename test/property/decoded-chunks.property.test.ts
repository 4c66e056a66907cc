// Model test of the decoded-chunk cache (src/cache/decoded-chunks.ts): random interleavings of
// lends (admitted or not), loads finishing in any order, writes (invalidate), aborts and chunks
// handed out to keep, against a versioned backing map. After every step: the bytes held never
// exceed the budget. Every chunk a reader sees is intact (a reused buffer never overwrote it) and
// never older than what the backing map held when the reader asked (no stale read after a write).
// Chunks handed out to keep never change afterwards. The engine-level half drives the same cache
// through a plain store: random window writes and reads, some overlapping, against a model array.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DecodedChunkCache, type LoadedChunk } from '../../src/cache/decoded-chunks.ts';
import { ZarrArray } from '../../src/engine/array.ts';
import { slice } from '../../src/engine/selection.ts';
import { MemoryStorage } from '../../src/engine/storage/memory.ts';
import { StorageStore } from '../../src/engine/store.ts';
import type { NdArray } from '../../src/format/zarr/ndarray.ts';

const RUNS = Number(process.env.FLOE_DECODED_CACHE_PROPERTY_RUNS ?? 1000);
const ENGINE_RUNS = Number(process.env.FLOE_DECODED_CACHE_ENGINE_RUNS ?? 25);
const KEYS = ['a', 'b', 'c'] as const;

type Op =
  | { kind: 'lend'; key: number; admit: boolean; withSignal: boolean }
  | { kind: 'finish'; pick: number }
  | { kind: 'fail'; pick: number }
  | { kind: 'write'; key: number; size: number }
  | { kind: 'abort'; pick: number }
  | { kind: 'keep'; key: number };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  { arbitrary: fc.record({ kind: fc.constant('lend' as const), key: fc.nat(KEYS.length - 1), admit: fc.boolean(), withSignal: fc.boolean() }), weight: 5 },
  { arbitrary: fc.record({ kind: fc.constant('finish' as const), pick: fc.nat() }), weight: 4 },
  { arbitrary: fc.record({ kind: fc.constant('fail' as const), pick: fc.nat() }), weight: 1 },
  { arbitrary: fc.record({ kind: fc.constant('write' as const), key: fc.nat(KEYS.length - 1), size: fc.integer({ min: 1, max: 24 }) }), weight: 2 },
  { arbitrary: fc.record({ kind: fc.constant('abort' as const), pick: fc.nat() }), weight: 1 },
  { arbitrary: fc.record({ kind: fc.constant('keep' as const), key: fc.nat(KEYS.length - 1) }), weight: 2 },
);

/** The byte every element of version `version` of key `k` holds. */
const pattern = (k: number, version: number): number => (k * 37 + version * 11 + 1) & 255;

interface PendingLoad {
  readonly run: () => void;
  readonly failWith: (err: Error) => void;
}

interface Reader {
  readonly key: number;
  readonly askedVersion: number;
  readonly controller: AbortController | undefined;
  outcome: 'pending' | 'found' | 'missed' | 'aborted' | 'failed';
}

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('decoded-chunk cache model', () => {
  it('keeps to its budget, never lends a damaged or stale chunk, never changes a kept one', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 40, max: 400 }), fc.array(opArb, { minLength: 1, maxLength: 100 }), async (budget, ops) => {
        const cache = new DecodedChunkCache(budget);
        const backing = KEYS.map(() => ({ version: 0, size: 8 }));
        const loads: PendingLoad[] = [];
        const readers: Reader[] = [];
        const kept: { chunk: NdArray; copy: Uint8Array }[] = [];
        const settled: Promise<unknown>[] = [];
        // Checked in `use` but recorded, not thrown: the cache would turn a throw into a rejection.
        const violations: string[] = [];

        const loader = (k: number) => (): Promise<LoadedChunk | undefined> =>
          new Promise((resolve, reject) => {
            // The "fetch" happens now: it sees the version current at this moment.
            const { version, size } = backing[k]!;
            loads.push({
              run: () => {
                const own = cache.takeBuffer(size);
                const data = own.subarray(0, size).fill(pattern(k, version));
                resolve({ chunk: { data, shape: [size], stride: [1] }, own });
              },
              failWith: reject,
            });
          });

        const lend = (k: number, admit: boolean, withSignal: boolean): void => {
          const controller = withSignal ? new AbortController() : undefined;
          const reader: Reader = { key: k, askedVersion: backing[k]!.version, controller, outcome: 'pending' };
          readers.push(reader);
          const use = (chunk: NdArray) => {
            const data = chunk.data as Uint8Array;
            const first = data[0]!;
            // Intact: one version's pattern throughout; fresh: not older than when asked.
            if (!data.every((x) => x === first)) violations.push(`${KEYS[k]}: a lent chunk mixes versions (a reused buffer)`);
            const seen = [...Array(backing[k]!.version + 1).keys()].filter((v) => pattern(k, v) === first);
            if (!seen.some((v) => v >= reader.askedVersion)) violations.push(`${KEYS[k]}: lent version ${seen.join('/')} after asking at version ${reader.askedVersion}`);
          };
          settled.push(
            cache.lend(KEYS[k]!, loader(k), use, { admit, signal: controller?.signal, abortError: () => new Error('aborted') }).then(
              (found) => (reader.outcome = found === undefined ? 'missed' : 'found'),
              (err: Error) => (reader.outcome = err.message === 'aborted' ? 'aborted' : 'failed'),
            ),
          );
        };

        for (const op of ops) {
          if (op.kind === 'lend') lend(op.key, op.admit, op.withSignal);
          else if (op.kind === 'finish' && loads.length > 0) loads.splice(op.pick % loads.length, 1)[0]!.run();
          else if (op.kind === 'fail' && loads.length > 0) loads.splice(op.pick % loads.length, 1)[0]!.failWith(new Error('load failed'));
          else if (op.kind === 'write') {
            backing[op.key] = { version: backing[op.key]!.version + 1, size: op.size };
            cache.invalidate(KEYS[op.key]!);
          } else if (op.kind === 'abort') {
            const waiting = readers.filter((r) => r.controller && r.outcome === 'pending');
            waiting[op.pick % Math.max(1, waiting.length)]?.controller?.abort();
          } else if (op.kind === 'keep') {
            const chunk = cache.get(KEYS[op.key]!);
            if (chunk) kept.push({ chunk, copy: Uint8Array.from(chunk.data as Uint8Array) });
          }
          await tick();
          expect(cache.stats().bytes).toBeLessThanOrEqual(budget);
          expect(violations).toEqual([]);
        }
        while (loads.length > 0) {
          loads.shift()!.run();
          await tick();
          expect(cache.stats().bytes).toBeLessThanOrEqual(budget);
        }
        await Promise.all(settled);
        expect(violations).toEqual([]);
        for (const r of readers) expect(r.outcome).not.toBe('pending');
        for (const { chunk, copy } of kept) expect(Buffer.from(chunk.data as Uint8Array).equals(copy)).toBe(true);
      }),
      { numRuns: RUNS },
    );
  });
});

describe('decoded chunks through a plain store', () => {
  it('reads after writes through the store never see an old chunk, overlapping or not', async () => {
    const N = 48;
    const windowArb = fc.record({ r: fc.nat(N - 1), c: fc.nat(N - 1), h: fc.integer({ min: 1, max: 12 }), w: fc.integer({ min: 1, max: 12 }) });
    const opArb2 = fc.oneof(
      fc.record({ kind: fc.constant('read' as const), win: windowArb }),
      fc.record({ kind: fc.constant('write' as const), win: windowArb, value: fc.integer({ min: 1, max: 1000 }) }),
      fc.record({ kind: fc.constant('both' as const), read: windowArb, write: windowArb, value: fc.integer({ min: 1, max: 1000 }) }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(opArb2, { minLength: 1, maxLength: 25 }), async (ops) => {
        // 16x16 float32 chunks (1 KiB) under a 16 KiB budget: all 9 fit, each within its eighth.
        const budget = 16 * 1024;
        const store = new StorageStore(new MemoryStorage(), { decodedChunkBytes: budget });
        const codecs = [{ name: 'bytes', configuration: { endian: 'little' } }, { name: 'zstd', configuration: { level: 1, checksum: false } }];
        const array = await ZarrArray.create(store, '/a', { shape: [N, N], chunkShape: [16, 16], dataType: 'float32', fillValue: 0, codecs } as never);
        const model = Float32Array.from({ length: N * N }, (_, i) => i + 0.5);
        await array.set(undefined, model);
        const clip = (w: { r: number; c: number; h: number; w: number }) => ({ r: w.r, c: w.c, h: Math.min(w.h, N - w.r), w: Math.min(w.w, N - w.c) });
        const read = async (raw: { r: number; c: number; h: number; w: number }) => {
          const { r, c, h, w } = clip(raw);
          return { win: { r, c, h, w }, data: (await array.get([slice(r, r + h), slice(c, c + w)])).data as Float32Array };
        };
        const expectModel = ({ win, data }: Awaited<ReturnType<typeof read>>) => {
          for (let i = 0; i < win.h; i++) {
            expect(Array.from(data.subarray(i * win.w, (i + 1) * win.w))).toEqual(Array.from(model.subarray((win.r + i) * N + win.c, (win.r + i) * N + win.c + win.w)));
          }
        };
        const write = async (raw: { r: number; c: number; h: number; w: number }, value: number) => {
          const { r, c, h, w } = clip(raw);
          await array.set([slice(r, r + h), slice(c, c + w)], value);
          for (let i = 0; i < h; i++) model.fill(value, (r + i) * N + c, (r + i) * N + c + w);
        };
        for (const op of ops) {
          if (op.kind === 'read') expectModel(await read(op.win));
          else if (op.kind === 'write') await write(op.win, op.value);
          else {
            // A read racing a write may see either side; one started after it must see the write.
            await Promise.all([read(op.read), write(op.write, op.value)]);
            expectModel(await read(op.read));
          }
          expect(store.decodedChunks!.cache.stats().bytes).toBeLessThanOrEqual(budget);
        }
        // Everything read back twice, a window inside each chunk: all current, the second time
        // from the cache (so the cache was in the path at all).
        const hitsBefore = store.decodedChunks!.cache.stats().hits;
        for (let pass = 0; pass < 2; pass++) {
          for (let r = 0; r < N; r += 16) for (let c = 0; c < N; c += 16) expectModel(await read({ r: r + 3, c: c + 2, h: 9, w: 9 }));
        }
        expect(store.decodedChunks!.cache.stats().hits - hitsBefore).toBeGreaterThanOrEqual(9);
      }),
      { numRuns: ENGINE_RUNS },
    );
  });
});
