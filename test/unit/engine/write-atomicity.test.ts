// A write refused for bad input or a damaged stored chunk changes no chunk, however many it spans:
// the value and every partly covered chunk are checked before the first chunk is written.
import { describe, expect, it } from 'vitest';
import { ZarrArray, type WriteValue } from '../../../src/engine/array.ts';
import { writeChunkRegions, type ChunkWrite } from '../../../src/engine/chunk-io.ts';
import { normalizeSelection, projectDim, slice, type Selection } from '../../../src/engine/selection.ts';
import type { ZarrStore } from '../../../src/engine/store.ts';
import { isFloeError, type ErrorCode } from '../../../src/errors.ts';
import type { CodecMetadata } from '../../../src/format/codecs/types.ts';
import { shiftView } from '../../../src/format/zarr/projection.ts';
import { countingStore } from './counting-store.ts';

const LE: CodecMetadata = { name: 'bytes', configuration: { endian: 'little' } };
const CHECKED: CodecMetadata[] = [LE, { name: 'crc32c' }];

/** Every stored object's bytes by key. */
async function snapshot(store: ZarrStore): Promise<Map<string, Uint8Array | undefined>> {
  const out = new Map<string, Uint8Array | undefined>();
  for await (const key of store.list()) out.set(key, await store.get(key));
  return out;
}

async function corrupt(store: ZarrStore, key: string): Promise<void> {
  const bytes = (await store.get(key))!.slice();
  bytes[0]! ^= 0xff;
  await store.set(key, bytes);
}

async function expectRefusedUnchanged(store: ZarrStore, write: () => Promise<void>, code: ErrorCode): Promise<void> {
  const before = await snapshot(store);
  const caught = await write().then(() => undefined, (err: unknown) => err);
  expect(isFloeError(caught, code), String(caught)).toBe(true);
  expect(await snapshot(store)).toEqual(before);
}

describe('a refused multi-chunk write changes nothing', () => {
  async function strings() {
    const { store } = countingStore();
    const array = await ZarrArray.create(store, '/s', { shape: [4], chunkShape: [2], dataType: 'string' });
    await array.set(undefined, ['w', 'x', 'y', 'z']);
    return { store, array };
  }

  it.each<[string, WriteValue]>([
    ['a number among strings', ['a', 'b', 'c', 5] as unknown as string[]],
    ['a lone surrogate', ['a', 'b', 'c', 'd\uD800']],
    ['a missing element', ['a', 'b', 'c'] as string[]],
  ])('string array: %s in the last chunk', async (_label, value) => {
    const { store, array } = await strings();
    const code = (value as string[]).length === 3 ? 'INVALID_SELECTION' : 'INVALID_ARGUMENT';
    await expectRefusedUnchanged(store, () => array.set(undefined, value, { concurrency: 1 }), code);
    expect((await array.get()).data).toEqual(['w', 'x', 'y', 'z']);
  });

  it('string array: a bad element leaves never-written chunks unwritten', async () => {
    const { store } = countingStore();
    const array = await ZarrArray.create(store, '/s', { shape: [6], chunkShape: [2], dataType: 'string' });
    await expectRefusedUnchanged(store, () => array.set(undefined, ['a', 'b', 'c', 'd', 'e', null] as unknown as string[]), 'INVALID_ARGUMENT');
    expect(await store.get('s/c/0')).toBeUndefined();
  });

  it('binary array: a string where bytes belong', async () => {
    const { store } = countingStore();
    const array = await ZarrArray.create(store, '/b', { shape: [4], chunkShape: [2], dataType: 'binary' });
    const bytes = (n: number) => new Uint8Array([n]);
    await array.set(undefined, [bytes(1), bytes(2), bytes(3), bytes(4)]);
    await expectRefusedUnchanged(store, () => array.set(undefined, [bytes(5), bytes(6), bytes(7), 'x'] as unknown as Uint8Array[]), 'INVALID_ARGUMENT');
  });

  async function checked(shape: number[], chunkShape: number[]) {
    const { store, log } = countingStore();
    const array = await ZarrArray.create(store, '/a', { shape, chunkShape, dataType: 'int32', codecs: CHECKED });
    const n = shape.reduce((a, b) => a * b, 1);
    await array.set(undefined, Int32Array.from({ length: n }, (_, i) => i + 1));
    return { store, log, array };
  }

  it.each<[string, Selection, number]>([
    ['both chunks partly covered', [slice(1, 7)], 6],
    ['the first chunk whole, the damaged one partly', [slice(0, 6)], 6],
  ])('crc32c mismatch in the second of two chunks (%s)', async (_label, selection, n) => {
    const { store, array } = await checked([8], [4]);
    await corrupt(store, 'a/c/1');
    await expectRefusedUnchanged(store, () => array.set(selection, new Int32Array(n).fill(-1), { concurrency: 1 }), 'CHECKSUM_MISMATCH');
    expect(Array.from((await array.get([slice(0, 4)])).data as Int32Array)).toEqual([1, 2, 3, 4]);
  });

  it('crc32c mismatch in the last of nine chunks of a 2-d write', async () => {
    const { store, array } = await checked([6, 6], [2, 2]);
    await corrupt(store, 'a/c/2/2');
    await expectRefusedUnchanged(store, () => array.set([slice(0, 5), slice(0, 5)], new Int32Array(25).fill(-1)), 'CHECKSUM_MISMATCH');
  });

  it('a strided write over a damaged chunk (every chunk partly covered)', async () => {
    const { store, array } = await checked([16], [4]);
    await corrupt(store, 'a/c/3');
    await expectRefusedUnchanged(store, () => array.set([slice(null, null, 2)], new Int32Array(8).fill(-1)), 'CHECKSUM_MISMATCH');
  });
});

/** The chunk writes `set([selection], src)` makes on a 1-d array (what ZarrArray.set builds). */
function writesFor(array: ZarrArray, selection: Selection, src: Int32Array): ChunkWrite[] {
  const [dim] = normalizeSelection(selection, array.shape);
  const size = array.chunkShape[0]!;
  return projectDim(dim!, size).map((p) => ({
    key: array.chunkKey([p.chunk]),
    job: { coords: [p.chunk], projections: [p] },
    src: shiftView({ data: src, offset: 0, stride: [1] }, [p]),
    extent: [Math.min(size, array.shape[0]! - p.chunk * size)],
  }));
}

describe('writeChunkRegions past its hold budget', () => {
  it('checks every partial chunk first, then reads each again when it writes it', async () => {
    const { store, log } = countingStore();
    const array = await ZarrArray.create(store, '/h', { shape: [8], chunkShape: [2], dataType: 'int32', codecs: CHECKED });
    await array.set(undefined, Int32Array.from([1, 2, 3, 4, 5, 6, 7, 8]));
    log.clear();
    const src = Int32Array.from([-2, -4, -6, -8]);
    await writeChunkRegions(store, array.chain, writesFor(array, [slice(1, null, 2)], src), { concurrency: 2, holdBytes: 0 });
    expect(log.reads.filter((k) => k === 'h/c/2')).toHaveLength(2);
    expect(Array.from((await array.get()).data as Int32Array)).toEqual([1, -2, 3, -4, 5, -6, 7, -8]);
  });

  it('still refuses before writing anything when a late chunk is damaged', async () => {
    const { store } = countingStore();
    const array = await ZarrArray.create(store, '/h', { shape: [8], chunkShape: [2], dataType: 'int32', codecs: CHECKED });
    await array.set(undefined, Int32Array.from([1, 2, 3, 4, 5, 6, 7, 8]));
    await corrupt(store, 'h/c/3');
    const writes = writesFor(array, [slice(1, null, 2)], Int32Array.from([-2, -4, -6, -8]));
    await expectRefusedUnchanged(store, () => writeChunkRegions(store, array.chain, writes, { concurrency: 1, holdBytes: 0 }), 'CHECKSUM_MISMATCH');
  });
});
