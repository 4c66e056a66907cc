// Inner chunks of shards in a directory store are read from the shard file into a reused buffer,
// through the decoded-chunk cache (small reads) or straight (no cache): values must match a
// memory store's ordinary path, and a shard cut short is CORRUPT_OBJECT naming it.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openStore } from '../../../src/engine/api.ts';
import { ZarrArray } from '../../../src/engine/array.ts';
import { slice, type Selection } from '../../../src/engine/selection.ts';
import { MemoryStorage } from '../../../src/engine/storage/memory.ts';
import { StorageStore } from '../../../src/engine/store.ts';
import { isFloeError } from '../../../src/errors.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'floe-sharded-local-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const N = 256;
const values = Float32Array.from({ length: N * N }, (_, i) => Math.cos(i / 77) * 9);
const META = {
  shape: [N, N], chunkShape: [128, 128], dataType: 'float32', fillValue: 0,
  codecs: [{ name: 'sharding_indexed', configuration: {
    chunk_shape: [32, 32],
    codecs: [{ name: 'bytes', configuration: { endian: 'little' } }, { name: 'zstd', configuration: { level: 1, checksum: false } }],
    index_codecs: [{ name: 'bytes', configuration: { endian: 'little' } }, { name: 'crc32c' }],
  } }],
} as never;

const selections: [string, Selection][] = [
  ['a window inside one inner chunk', [slice(3, 20), slice(40, 60)]],
  ['a window across shards', [slice(100, 160), slice(120, 140)]],
  ['a strided band', [slice(0, 256, 3), slice(10, 200)]],
];

describe('inner chunks read from the shard file', () => {
  for (const budget of [undefined, 0]) {
    it(`match the ordinary path (${budget === 0 ? 'no cache' : 'through the cache'}), twice`, async () => {
      const root = path.join(dir, `budget-${budget ?? 'default'}`);
      const onDisk = await ZarrArray.create(openStore(root, budget === undefined ? {} : { decodedChunkBytes: budget }), '/a', META);
      await onDisk.set(undefined, values);
      const inMemory = await ZarrArray.create(new StorageStore(new MemoryStorage(), { decodedChunkBytes: 0 }), '/a', META);
      await inMemory.set(undefined, values);
      for (const [, selection] of [...selections, ...selections]) {
        const want = (await inMemory.get(selection)).data as Float32Array;
        const got = (await onDisk.get(selection, { decodePool: false })).data as Float32Array;
        expect(Buffer.from(got.buffer).equals(Buffer.from(want.buffer))).toBe(true);
      }
    });
  }

  it('a shard whose index points past its end is CORRUPT_OBJECT naming its key, cached or not', async () => {
    for (const budget of [undefined, 0]) {
      const root = path.join(dir, `cut-${budget ?? 'default'}`);
      const options = budget === undefined ? {} : { decodedChunkBytes: budget };
      await (await ZarrArray.create(openStore(root, options), '/a', META)).set(undefined, values);
      // Keep the first 100 bytes and the index (16 inner chunks x 16 bytes + crc32c, at the end).
      const file = path.join(root, 'a', 'c', '0', '0');
      const bytes = readFileSync(file);
      writeFileSync(file, Buffer.concat([bytes.subarray(0, 100), bytes.subarray(bytes.length - 260)]));
      const err = await (await ZarrArray.open(openStore(root, options), '/a')).get([slice(40, 50), slice(40, 50)], { decodePool: false }).catch((e: unknown) => e);
      expect(isFloeError(err, 'CORRUPT_OBJECT')).toBe(true);
      expect((err as { where?: string }).where).toBe('a/c/0/0');
    }
  });
});
