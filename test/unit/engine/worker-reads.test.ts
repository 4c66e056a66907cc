// Large chunks in a local directory store are read, decoded and copied by worker threads straight
// into a shared-memory result. Values, fill for missing chunks and error reporting must match the
// inline path exactly.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openStore } from '../../../src/engine/api.ts';
import { ZarrArray } from '../../../src/engine/array.ts';
import { slice } from '../../../src/engine/selection.ts';
import { isFloeError } from '../../../src/errors.ts';
import { testPool, warmPool } from '../../support/decode-pool.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'floe-worker-reads-'));
// Started for reads of 8 MiB and more (the default waits for 64 MiB), warm before each read.
const pool = testPool(8 << 20);
afterAll(async () => {
  await pool.close();
  rmSync(dir, { recursive: true, force: true });
});

const N = 2048; // 16 MiB: reads of this pool's 8 MiB and more use it
const values = Float32Array.from({ length: N * N }, (_, i) => Math.sin(i / 977) * 50 + (i % 13));
const layouts = {
  plain: [{ name: 'bytes', configuration: { endian: 'little' } }],
  zstd: [{ name: 'bytes', configuration: { endian: 'little' } }, { name: 'zstd', configuration: { level: 1, checksum: false } }],
  // A codec the registry loads on first use: the worker loads it before building its chain.
  shuffled: [{ name: 'bytes', configuration: { endian: 'little' } }, { name: 'numcodecs.shuffle', configuration: { elementsize: 4 } }, { name: 'zstd', configuration: { level: 1, checksum: false } }],
  sharded: [{ name: 'sharding_indexed', configuration: {
    chunk_shape: [256, 256],
    codecs: [{ name: 'bytes', configuration: { endian: 'little' } }, { name: 'zstd', configuration: { level: 1, checksum: false } }],
    index_codecs: [{ name: 'bytes', configuration: { endian: 'little' } }, { name: 'crc32c' }],
  } }],
};

describe('worker reads from a directory store', () => {
  for (const [name, codecs] of Object.entries(layouts)) {
    it(`reads ${name} chunks on workers with the same values as inline, fill where missing`, async () => {
      const store = openStore(path.join(dir, `${name}.zarr`));
      const a = await ZarrArray.create(store, '/a', { shape: [N, N], chunkShape: [1024, 1024], dataType: 'float32', fillValue: -7, codecs });
      await a.set(undefined, values);
      await a.set([slice(1024, 2048), slice(0, 1024)], -7); // a whole chunk of fill: erased
      const expected = values.slice();
      for (let r = 1024; r < 2048; r++) expected.fill(-7, r * N, r * N + 1024);
      await warmPool(pool);
      const sent = pool.chunksSent;
      const viaWorkers = await a.get(undefined, { decodePool: pool });
      expect((viaWorkers.data as Float32Array).buffer).toBeInstanceOf(SharedArrayBuffer);
      expect(pool.chunksSent).toBeGreaterThan(sent); // the worker path was taken
      expect(Buffer.from((viaWorkers.data as Float32Array).buffer).equals(Buffer.from(expected.buffer))).toBe(true);
      const inline = await a.get(undefined, { decodePool: false });
      expect(Buffer.from((inline.data as Float32Array).buffer).equals(Buffer.from(expected.buffer))).toBe(true);
    });
  }

  it('names the chunk key when a worker finds a corrupt chunk', async () => {
    const root = path.join(dir, 'corrupt.zarr');
    const a = await ZarrArray.create(openStore(root), '/a', { shape: [N, N], chunkShape: [1024, 1024], dataType: 'float32', codecs: layouts.zstd });
    await a.set(undefined, values);
    writeFileSync(path.join(root, 'a', 'c', '0', '1'), Buffer.from('not a zstd frame at all'));
    await warmPool(pool);
    const err = await a.get(undefined, { decodePool: pool }).catch((e: unknown) => e);
    expect(isFloeError(err, 'CORRUPT_OBJECT')).toBe(true);
    expect((err as Error).message).toContain('a/c/0/1');
  });
});
