// Large writes of compressed arrays encode their chunks on the pool's workers. The stored chunks
// must be byte-identical to the ones the calling thread encodes; chunks of fill are still erased;
// a write decides from its size whether to start workers (small ones never do), and a write whose
// worker dies fails without having written anything in its check phase.
import { Worker } from 'node:worker_threads';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { ZarrArray } from '../../../src/engine/array.ts';
import { DecodePool, MIN_POOLED_READ_BYTES } from '../../../src/engine/decode-pool.ts';
import { slice } from '../../../src/engine/selection.ts';
import { MemoryStorage } from '../../../src/engine/storage/memory.ts';
import { StorageStore, type AbortOptions } from '../../../src/engine/store.ts';
import { isFloeError } from '../../../src/errors.ts';
import type { CodecMetadata } from '../../../src/format/codecs/types.ts';
import { zstdBackend } from '../../../src/format/codecs/zstd-backend.ts';
import { encodeOwnedChunk } from '../../../src/engine/raw-chunk.ts';
import { testPool, warmPool } from '../../support/decode-pool.ts';

const pool = testPool(8 << 20);
const observed: DecodePool[] = [];
afterAll(async () => {
  await pool.close();
});
afterEach(async () => {
  await Promise.all(observed.splice(0).map((p) => p.close()));
});

const N = 1536; // 9 MiB of float32 in 512 x 512 chunks (1 MiB each, 9 of them)
const CHUNK = 512;
const values = Float32Array.from({ length: N * N }, (_, i) => Math.sin(i / 977) * 50 + (i % 13));
const bytesLE: CodecMetadata = { name: 'bytes', configuration: { endian: 'little' } };
const zstd: CodecMetadata = { name: 'zstd', configuration: { level: 3, checksum: false } };
const zstdLayout: CodecMetadata[] = [bytesLE, zstd];
const layouts: Record<string, CodecMetadata[]> = {
  zstd: zstdLayout,
  'zstd with checksum, then crc32c': [bytesLE, { name: 'zstd', configuration: { level: 5, checksum: true } }, { name: 'crc32c' }],
  'big-endian, gzip': [{ name: 'bytes', configuration: { endian: 'big' } }, { name: 'gzip', configuration: { level: 1 } }],
  'transpose, zstd': [{ name: 'transpose', configuration: { order: [1, 0] } }, bytesLE, zstd],
  // A codec the registry loads on first use: the worker loads it before building its chain.
  'shuffle, zstd': [bytesLE, { name: 'numcodecs.shuffle', configuration: { elementsize: 4 } }, zstd],
  sharded: [{ name: 'sharding_indexed', configuration: {
    chunk_shape: [128, 128],
    codecs: [bytesLE, zstd],
    index_codecs: [bytesLE, { name: 'crc32c' }],
  } }],
};

function memoryStore() {
  return new StorageStore(new MemoryStorage(), { decodedChunkBytes: 0 });
}

/** Every chunk key of the grid with its stored bytes (undefined where erased). */
async function storedChunks(array: ZarrArray): Promise<Map<string, Uint8Array | undefined>> {
  const out = new Map<string, Uint8Array | undefined>();
  const per = N / CHUNK;
  for (let i = 0; i < per; i++) for (let j = 0; j < per; j++) out.set(array.chunkKey([i, j]), await array.store.get(array.chunkKey([i, j])));
  return out;
}

/** Writes the values whole, a partial overwrite and a chunk of fill, with or without `decodePool`. */
async function writeAll(codecs: CodecMetadata[], decodePool: DecodePool | false) {
  const array = await ZarrArray.create(memoryStore(), '/a', { shape: [N, N], chunkShape: [CHUNK, CHUNK], dataType: 'float32', fillValue: -7, codecs });
  await array.set(undefined, values, { decodePool });
  // Partly covers every chunk it touches: each is read, decoded, merged and encoded again.
  await array.set([slice(100, 1400), slice(300, 1301)], 2.5, { decodePool });
  await array.set([slice(1024, 1536), slice(0, 512)], -7, { decodePool }); // all fill: erased
  return array;
}

const bits = (a: Float32Array) => Buffer.from(a.buffer, a.byteOffset, a.byteLength);

describe('writes encoding on workers', () => {
  for (const [name, codecs] of Object.entries(layouts)) {
    it(`stores ${name} chunks byte-identical to the calling thread's encoding`, async () => {
      await warmPool(pool);
      const sent = pool.encodesSent;
      const viaWorkers = await writeAll(codecs, pool);
      expect(pool.encodesSent - sent).toBeGreaterThanOrEqual(9); // every chunk of the first write at least
      const inline = await writeAll(codecs, false);
      const [a, b] = [await storedChunks(viaWorkers), await storedChunks(inline)];
      expect([...a.keys()]).toEqual([...b.keys()]);
      for (const [key, bytes] of a) {
        const other = b.get(key);
        expect(bytes === undefined, key).toBe(other === undefined);
        if (bytes && other) expect(Buffer.from(bytes).equals(Buffer.from(other)), key).toBe(true);
      }
      expect(a.get(viaWorkers.chunkKey([2, 0]))).toBeUndefined(); // the chunk of fill was erased
      const expected = values.slice();
      for (let r = 100; r < 1400; r++) expected.fill(2.5, r * N + 300, r * N + 1301);
      for (let r = 1024; r < 1536; r++) expected.fill(-7, r * N, r * N + 512);
      expect(bits((await viaWorkers.get(undefined, { decodePool: false })).data as Float32Array).equals(bits(expected))).toBe(true);
    });
  }

  it('reads shared chunk memory in place, copies any other, and gets the encoding back by transfer', async () => {
    await warmPool(pool);
    const array = await ZarrArray.create(memoryStore(), '/a', { shape: [N, N], chunkShape: [CHUNK, CHUNK], dataType: 'float32', codecs: zstdLayout });
    const plain = values.slice(0, CHUNK * CHUNK);
    const shared = new Float32Array(new SharedArrayBuffer(plain.byteLength));
    shared.set(plain);
    const expected = encodeOwnedChunk(array.chain, { data: plain.slice(), shape: [CHUNK, CHUNK], stride: [CHUNK, 1] });
    for (const chunk of [shared, plain]) {
      const encoded = await pool.encode(array.chain, chunk);
      expect(bits(chunk).equals(bits(values.subarray(0, CHUNK * CHUNK)))).toBe(true); // still here, unchanged
      expect(Buffer.from(encoded).equals(Buffer.from(expected))).toBe(true);
      // Encoded into memory of this thread's, of the chain's worst-case size: that buffer came back whole.
      if (zstdBackend().name === 'zstd-napi') expect(encoded.buffer.byteLength).toBe(array.chain.encodedSizeBound());
    }
  });

  it('holds the checked chunks of a partial write at their encoded size, not their compressor\'s worst case', async () => {
    await warmPool(pool);
    const held: number[] = [];
    class Recording extends StorageStore {
      override async set(key: string, value: Uint8Array, options?: AbortOptions): Promise<void> {
        // The middle chunk is covered whole: encoded as it is written, never held.
        if (key !== 'a/c/1/1') held.push(value.buffer.byteLength / value.byteLength);
        return super.set(key, value, options);
      }
    }
    const store = new Recording(new MemoryStorage(), { decodedChunkBytes: 0 });
    const array = await ZarrArray.create(store, '/a', { shape: [N, N], chunkShape: [CHUNK, CHUNK], dataType: 'float32', codecs: zstdLayout });
    for (const decodePool of [pool, false] as const) {
      held.length = 0;
      await array.set([slice(1, N - 1), slice(1, N - 1)], 3, { decodePool }); // compresses to a few KiB a chunk
      expect(held).toHaveLength(8);
      for (const ratio of held) expect(ratio).toBeLessThanOrEqual(2);
    }
  });

  it('keeps no more chunks on workers at once than the write\'s concurrency', async () => {
    await warmPool(pool);
    const encode = pool.encode.bind(pool);
    let inFlight = 0;
    let peak = 0;
    const spied = Object.assign(Object.create(pool) as DecodePool, {
      encode: async (...args: Parameters<DecodePool['encode']>) => {
        peak = Math.max(peak, ++inFlight);
        try {
          return await encode(...args);
        } finally {
          inFlight--;
        }
      },
    });
    const array = await ZarrArray.create(memoryStore(), '/a', { shape: [N, N], chunkShape: [CHUNK, CHUNK], dataType: 'float32', codecs: zstdLayout });
    await array.set(undefined, values, { decodePool: spied, concurrency: 3 });
    expect(peak).toBeGreaterThan(1);
    expect(peak).toBeLessThanOrEqual(3);
    expect(bits((await array.get(undefined, { decodePool: false })).data as Float32Array).equals(bits(values))).toBe(true);
  });
});

/** A pool starting for 2 MiB and more whose workers run `source` (eval), counted as created. */
function observedPool(source = 'setInterval(() => {}, 1 << 30)') {
  const created: unknown[] = [];
  const p = new DecodePool(2, {
    startBytes: 2 << 20,
    createWorker: (workerData) => {
      created.push(workerData);
      return new Worker(source, { eval: true, workerData });
    },
  });
  observed.push(p);
  return { pool: p, created };
}

describe('whether a write starts encode workers', () => {
  it('plans by size: small writes inline, big ones start the pool, running workers take writes of 8 MiB and more', () => {
    const { pool: p } = observedPool();
    expect(p.planForWrite((4 << 20) - 1)).toBe('inline');
    expect(p.planForWrite(4 << 20)).toBe('start'); // twice the pool's 2 MiB
    p.start();
    expect(p.planForWrite(MIN_POOLED_READ_BYTES - 1)).toBe('inline');
    expect(p.planForWrite(MIN_POOLED_READ_BYTES)).toBe('pool');
  });

  it('a small write encodes in the calling thread and creates no worker', async () => {
    const { pool: p, created } = observedPool();
    const array = await ZarrArray.create(memoryStore(), '/a', { shape: [N, N], chunkShape: [CHUNK, CHUNK], dataType: 'float32', codecs: zstdLayout });
    await array.set([slice(0, 512), slice(0, 512)], values.subarray(0, 512 * 512), { decodePool: p }); // one 1 MiB chunk
    expect(created).toHaveLength(0);
    expect(p.started).toBe(false);
  });

  it('an uncompressed write never starts workers, however big', async () => {
    const { pool: p, created } = observedPool();
    const array = await ZarrArray.create(memoryStore(), '/a', { shape: [N, N], chunkShape: [CHUNK, CHUNK], dataType: 'float32', codecs: [bytesLE] });
    await array.set(undefined, values, { decodePool: p });
    expect(created).toHaveLength(0);
  });

  it('a big write starts the workers at once and encodes in its own thread until one is ready', async () => {
    const { pool: p, created } = observedPool(); // its workers never get ready
    const array = await ZarrArray.create(memoryStore(), '/a', { shape: [N, N], chunkShape: [CHUNK, CHUNK], dataType: 'float32', codecs: zstdLayout });
    await array.set(undefined, values, { decodePool: p });
    expect(created).toHaveLength(2);
    expect(p.encodesSent).toBe(0);
    await array.set(undefined, values, { decodePool: p });
    expect(p.workersStarted).toBe(2); // started once
    expect(bits((await array.get(undefined, { decodePool: false })).data as Float32Array).equals(bits(values))).toBe(true);
  });

  it('a worker that dies fails the write, and a failure in the check phase changes nothing', async () => {
    // Ready at once, then exits on the first request.
    const { pool: p } = observedPool(
      "const { parentPort, workerData } = require('node:worker_threads'); Atomics.store(workerData.ready, 0, 1); parentPort.on('message', () => process.exit(3));",
    );
    const store = memoryStore();
    const array = await ZarrArray.create(store, '/a', { shape: [N, N], chunkShape: [CHUNK, CHUNK], dataType: 'float32', codecs: zstdLayout });
    await array.set(undefined, values, { decodePool: false });
    const before = await storedChunks(array);
    p.start();
    const deadline = performance.now() + 20_000;
    while (!p.ready && performance.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(p.ready).toBe(true);
    // Every chunk partly covered: all are merged and encoded before the first is written.
    const err = await array.set([slice(1, N - 1), slice(1, N - 1)], 1, { decodePool: p }).catch((e: unknown) => e);
    expect(isFloeError(err, 'STORAGE_ERROR')).toBe(true);
    const after = await storedChunks(array);
    for (const [key, bytes] of before) expect(Buffer.from(after.get(key) ?? []).equals(Buffer.from(bytes ?? [])), key).toBe(true);
  });
});
