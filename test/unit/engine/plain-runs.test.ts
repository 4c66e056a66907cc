// Uncompressed chunks in a directory store whose rows a read takes whole are read straight into
// the result (readv), in the calling thread and on workers: values must match the ordinary path
// for row ranges, 1-d and 3-d chunks, ragged edges, missing chunks (fill) and damaged ones.
import { mkdtempSync, rmSync, truncateSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openStore } from '../../../src/engine/api.ts';
import { ZarrArray } from '../../../src/engine/array.ts';
import { slice } from '../../../src/engine/selection.ts';
import { MemoryStorage } from '../../../src/engine/storage/memory.ts';
import { StorageStore } from '../../../src/engine/store.ts';
import { isFloeError } from '../../../src/errors.ts';
import { plainRuns } from '../../../src/engine/plain-runs.ts';
import { buildCodecChain } from '../../../src/format/codecs/pipeline.ts';
import { parseDataType } from '../../../src/format/zarr/data-types.ts';
import { parseFillValue } from '../../../src/format/zarr/fill-value.ts';
import { testPool, warmPool } from '../../support/decode-pool.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'floe-plain-runs-'));
const pool = testPool(1 << 20); // reads of 1 MiB and more use it
afterAll(async () => {
  await pool.close();
  rmSync(dir, { recursive: true, force: true });
});

const bytesOnly = [{ name: 'bytes', configuration: { endian: 'little' } }];
const sameBits = (a: unknown, b: Float32Array) => Buffer.from((a as Float32Array).buffer, (a as Float32Array).byteOffset, b.byteLength).equals(Buffer.from(b.buffer));

/** The array on disk and the same values in memory (read by the ordinary path: no local files). */
async function pair(name: string, shape: number[], chunkShape: number[]) {
  const n = shape.reduce((a, b) => a * b, 1);
  const values = Float32Array.from({ length: n }, (_, i) => i * 0.5 - 7);
  const meta = { shape, chunkShape, dataType: 'float32', fillValue: -1, codecs: bytesOnly } as never;
  const onDisk = await ZarrArray.create(openStore(path.join(dir, name), { decodedChunkBytes: 0 }), '/a', meta);
  await onDisk.set(undefined, values);
  const inMemory = await ZarrArray.create(new StorageStore(new MemoryStorage()), '/a', meta);
  await inMemory.set(undefined, values);
  return { onDisk, inMemory, root: path.join(dir, name) };
}

describe('uncompressed chunks read straight into the result', () => {
  const cases: [string, number[], number[], (ReturnType<typeof slice> | null)[]][] = [
    ['2-d whole', [512, 640], [128, 256], [null, null]],
    ['2-d row range, ragged edge', [500, 640], [128, 256], [slice(37, 470), null]],
    ['2-d column cut (not whole rows)', [512, 640], [128, 256], [slice(3, 300), slice(5, 600)]],
    ['1-d range', [300_000], [65_536], [slice(1_000, 250_000)]],
    ['3-d row range', [64, 64, 256], [16, 32, 256], [slice(5, 60), null, null]],
  ];
  for (const [name, shape, chunkShape, selection] of cases) {
    it(`${name}: the same values in-thread and on workers as the ordinary path`, async () => {
      const { onDisk, inMemory } = await pair(name.replace(/[^a-z0-9]+/gi, '-'), shape, chunkShape);
      const expected = (await inMemory.get(selection)).data as Float32Array;
      expect(sameBits((await onDisk.get(selection, { decodePool: false })).data, expected)).toBe(true);
      await warmPool(pool);
      expect(sameBits((await onDisk.get(selection, { decodePool: pool })).data, expected)).toBe(true);
    });
  }

  it('applies to whole rows of a plain little-endian chunk only', () => {
    const view = { data: new Float32Array(1024 * 1024), offset: 0, stride: [1024, 1] };
    const whole = (n: number) => ({ chunk: 0, start: 0, step: 1, count: n, outStart: 0 });
    const dataType = parseDataType('float32');
    const chainOf = (codecs: unknown[]) => buildCodecChain(codecs as never, { shape: [256, 256], dataType, fillValue: parseFillValue(dataType, 0) });
    const plain = chainOf(bytesOnly);
    expect(plainRuns(plain, [whole(256), whole(256)], view)?.views).toHaveLength(256);
    expect(plainRuns(plain, [{ ...whole(10), start: 4 }, whole(256)], view)?.fileOffset).toBe(4 * 256 * 4);
    expect(plainRuns(plain, [whole(256), { ...whole(100), start: 3 }], view)).toBeUndefined();
    expect(plainRuns(plain, [{ ...whole(128), step: 2 }, whole(256)], view)).toBeUndefined();
    expect(plainRuns(chainOf([{ name: 'bytes', configuration: { endian: 'big' } }]), [whole(256), whole(256)], view)).toBeUndefined();
    expect(plainRuns(chainOf([...bytesOnly, { name: 'zstd', configuration: { level: 1 } }]), [whole(256), whole(256)], view)).toBeUndefined();
  });

  it('a missing chunk file reads as fill; a truncated one is CORRUPT_OBJECT naming the chunk', async () => {
    const { onDisk, root } = await pair('damaged', [256, 256], [128, 256]);
    rmSync(path.join(root, 'a', 'c', '1', '0'));
    const got = (await onDisk.get(undefined, { decodePool: false })).data as Float32Array;
    expect(got.subarray(128 * 256).every((x) => x === -1)).toBe(true);
    truncateSync(path.join(root, 'a', 'c', '0', '0'), 1000);
    for (const decodePool of [false as const, pool]) {
      const err = await onDisk.get(undefined, { decodePool }).catch((e: unknown) => e);
      expect(isFloeError(err, 'CORRUPT_OBJECT')).toBe(true);
      expect((err as Error).message).toContain('a/c/0/0');
    }
  });
});
