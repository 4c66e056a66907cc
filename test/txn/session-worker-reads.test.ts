// Large reads through a session on a local-filesystem repository: decode workers read the chunk
// objects (whole or a packed byte range) themselves, as they do for plain directory stores, so
// the main thread never GETs them. Unwritten chunks still come from the session's memory.
import { mkdtempSync, readdirSync, rmSync, truncateSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ZarrArray } from '../../src/engine/array.ts';
import { FsStorage } from '../../src/engine/storage/fs.ts';
import type { ByteRange } from '../../src/engine/storage/types.ts';
import { isFloeError } from '../../src/errors.ts';
import { Repository, Storage, type RepositoryOptions } from '../../src/txn/index.ts';
import { testPool, warmPool } from '../support/decode-pool.ts';

const scratch = mkdtempSync(path.join(tmpdir(), 'floe-session-workers-'));
const pool = testPool(8 << 20); // started for reads of 8 MiB and more (the default waits for 64 MiB)
afterAll(async () => {
  await pool.close();
  rmSync(scratch, { recursive: true, force: true });
});

const N = 2048; // 16 MiB of float32: reads this big use the pool
const values = Float32Array.from({ length: N * N }, (_, i) => Math.cos(i / 601) * 40 + (i % 11));
const META = {
  shape: [N, N], chunkShape: [1024, 1024], dataType: 'float32', fillValue: 0,
  codecs: [{ name: 'bytes', configuration: { endian: 'little' } }, { name: 'zstd', configuration: { level: 1, checksum: false } }],
} as never;

/** FsStorage that counts main-thread GETs of chunk objects. */
class CountingFs extends FsStorage {
  chunkGets = 0;
  override get(key: string, range?: ByteRange) {
    if (key.startsWith('chunks/')) this.chunkGets++;
    return super.get(key, range);
  }
}

async function committedRepo(name: string, options: RepositoryOptions) {
  const backend = new CountingFs({ root: path.join(scratch, name) });
  const repo = await Repository.create(Storage.fromObjectStorage(backend), {}, 2, {}, options);
  const session = await repo.writableSession('main');
  await (await ZarrArray.create(session.store, '/a', META)).set(undefined, values);
  await session.commit('values');
  return { repo, backend };
}

const sameBits = (a: Float32Array) => Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(Buffer.from(values.buffer));

describe('session reads on decode workers', () => {
  const packings: [string, RepositoryOptions][] = [
    ['one object per chunk', { chunkPacking: false }],
    ['chunks packed at offsets', { chunkPacking: { maxChunkBytes: 8 << 20, packBytes: 16 << 20 } }],
  ];
  for (const [name, options] of packings) {
    it(`reads committed chunks (${name}) on workers without main-thread GETs`, async () => {
      const { repo, backend } = await committedRepo(name.replace(/ /g, '-'), options);
      const reader = await repo.readonlySession({ branch: 'main' });
      backend.chunkGets = 0;
      await warmPool(pool);
      const sent = pool.chunksSent;
      const got = await (await ZarrArray.open(reader.store, '/a')).get(undefined, { decodePool: pool });
      expect((got.data as Float32Array).buffer).toBeInstanceOf(SharedArrayBuffer);
      expect(pool.chunksSent).toBeGreaterThan(sent);
      expect(sameBits(got.data as Float32Array)).toBe(true);
      expect(backend.chunkGets).toBe(0);
    });
  }

  it('reads chunks a writable session has not written yet from memory', async () => {
    const backend = new CountingFs({ root: path.join(scratch, 'unwritten') });
    const repo = await Repository.create(Storage.fromObjectStorage(backend), {}, 2, {}, { chunkPacking: { maxChunkBytes: 8 << 20, packBytes: 64 << 20 } });
    const session = await repo.writableSession('main');
    const a = await ZarrArray.create(session.store, '/a', META);
    await a.set(undefined, values);
    expect(sameBits((await a.get()).data as Float32Array)).toBe(true);
  });

  for (const where of ['in the calling thread', 'on workers'] as const) {
    it(`a missing chunk object is NOT_FOUND and a truncated pack CORRUPT_OBJECT, naming the chunk key (${where})`, async () => {
      const { repo } = await committedRepo(`damaged-${where.split(' ').at(-1)}`, { chunkPacking: { maxChunkBytes: 8 << 20, packBytes: 16 << 20 } });
      const chunksDir = path.join(scratch, `damaged-${where.split(' ').at(-1)}`, 'chunks');
      const options = where === 'on workers' ? { decodePool: pool } : { decodePool: false as const };
      if (where === 'on workers') await warmPool(pool);
      const files = readdirSync(chunksDir).map((f) => path.join(chunksDir, f));
      for (const file of files) truncateSync(file, 1000);
      const truncated = await (await ZarrArray.open((await repo.readonlySession({ branch: 'main' })).store, '/a')).get(undefined, options).catch((e: unknown) => e);
      expect(isFloeError(truncated, 'CORRUPT_OBJECT')).toBe(true);
      expect((truncated as Error).message).toMatch(/a\/c\/\d\/\d/);
      for (const file of files) unlinkSync(file);
      const missing = await (await ZarrArray.open((await repo.readonlySession({ branch: 'main' })).store, '/a')).get(undefined, options).catch((e: unknown) => e);
      expect(isFloeError(missing, 'NOT_FOUND')).toBe(true);
      expect((missing as Error).message).toMatch(/a\/c\/\d\/\d/);
    });
  }
});
