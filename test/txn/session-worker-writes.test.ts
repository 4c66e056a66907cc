// Writes through an Icechunk session take the same encode path as plain stores: big compressed
// writes encode on the pool's workers, and the chunks committed are the bytes the calling thread
// would have encoded.
import { afterAll, describe, expect, it } from 'vitest';
import { ZarrArray } from '../../src/engine/array.ts';
import type { DecodePool } from '../../src/engine/decode-pool.ts';
import { MemoryStorage } from '../../src/engine/storage/memory.ts';
import { Repository, Storage } from '../../src/txn/index.ts';
import { testPool, warmPool } from '../support/decode-pool.ts';

const pool = testPool(8 << 20);
afterAll(async () => {
  await pool.close();
});

const N = 2048; // 16 MiB of float32 in 1 MiB chunks
const values = Float32Array.from({ length: N * N }, (_, i) => Math.cos(i / 601) * 40 + (i % 11));
const META = {
  shape: [N, N], chunkShape: [512, 512], dataType: 'float32', fillValue: 0,
  codecs: [{ name: 'bytes', configuration: { endian: 'little' } }, { name: 'zstd', configuration: { level: 3, checksum: false } }],
} as never;

/** Writes `values` in a session with `decodePool`, commits, and returns every committed chunk's bytes. */
async function committedChunks(decodePool: DecodePool | false): Promise<Map<string, Uint8Array | undefined>> {
  const repo = await Repository.create(Storage.fromObjectStorage(new MemoryStorage()), {}, 2, {}, { chunkPacking: false });
  const session = await repo.writableSession('main');
  await (await ZarrArray.create(session.store, '/a', META)).set(undefined, values, { decodePool });
  await session.commit('values');
  const reader = await repo.readonlySession({ branch: 'main' });
  const array = await ZarrArray.open(reader.store, '/a');
  const got = (await array.get(undefined, { decodePool: false })).data as Float32Array;
  expect(Buffer.from(got.buffer, got.byteOffset, got.byteLength).equals(Buffer.from(values.buffer))).toBe(true);
  const chunks = new Map<string, Uint8Array | undefined>();
  for (let i = 0; i < N / 512; i++) for (let j = 0; j < N / 512; j++) chunks.set(array.chunkKey([i, j]), await reader.store.get(array.chunkKey([i, j])));
  return chunks;
}

describe('session writes on encode workers', () => {
  it('encode on workers and commit the bytes the calling thread encodes', async () => {
    await warmPool(pool);
    const sent = pool.encodesSent;
    const viaWorkers = await committedChunks(pool);
    expect(pool.encodesSent - sent).toBe(16);
    const inline = await committedChunks(false);
    expect(viaWorkers.size).toBe(16);
    for (const [key, bytes] of viaWorkers) {
      expect(bytes, key).toBeDefined();
      expect(Buffer.from(bytes ?? []).equals(Buffer.from(inline.get(key) ?? [])), key).toBe(true);
    }
  });
});
