// Whole uncompressed chunks written straight from the caller's array (raw-chunk.ts, the store's
// setParts): the runs a chunk is made of, and a property that such writes, run in parallel over
// a directory store, leave exactly the bytes a serial write through the copying path leaves, and
// read back as the values worked out element by element.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { openStore } from '../../../src/engine/api.ts';
import { ZarrArray } from '../../../src/engine/array.ts';
import { chunkRuns, MIN_RUN_BYTES, storedAsInMemory } from '../../../src/engine/raw-chunk.ts';
import { normalizeSelection, resultShape, slice, type Selection } from '../../../src/engine/selection.ts';
import { MemoryStorage } from '../../../src/engine/storage/memory.ts';
import { StorageStore, type ZarrStore } from '../../../src/engine/store.ts';
import { buildCodecChain } from '../../../src/format/codecs/pipeline.ts';
import type { CodecMetadata } from '../../../src/format/codecs/types.ts';
import { parseDataType, type TypedArray } from '../../../src/format/zarr/data-types.ts';
import { parseFillValue, type FillValueInput } from '../../../src/format/zarr/fill-value.ts';

const RUNS = Number(process.env.FLOE_WRITE_PARTS_RUNS ?? 25);
const LE: CodecMetadata = { name: 'bytes', configuration: { endian: 'little' } };
const BE: CodecMetadata = { name: 'bytes', configuration: { endian: 'big' } };
const scratch = mkdtempSync(path.join(tmpdir(), 'floe-write-parts-'));
let dirs = 0;
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function chainOf(dataType: string, chunkShape: number[], codecs: CodecMetadata[] = [LE]) {
  const dt = parseDataType(dataType);
  return buildCodecChain(codecs, { shape: chunkShape, dataType: dt, fillValue: parseFillValue(dt, zeroOf(dataType)) }, 'test');
}

/** The fill value 0 in the data type's JSON form. */
function zeroOf(dataType: string): FillValueInput {
  return dataType === 'bool' ? false : dataType.startsWith('complex') ? [0, 0] : 0;
}

/** A whole-chunk projection per dimension. */
const whole = (chunkShape: number[]) => chunkShape.map((n) => ({ chunk: 0, start: 0, step: 1, count: n, outStart: 0 }));

describe('chunkRuns', () => {
  const f32 = new Float32Array(4 * 512);

  it('gives one run per chunk row, each a view of the caller\'s array', () => {
    const runs = chunkRuns(chainOf('float32', [2, 256]), { data: f32, offset: 512 + 256, stride: [512, 1] }, whole([2, 256]), [2, 256]);
    expect(runs).toHaveLength(2);
    expect(runs?.map((r) => [r.byteOffset, r.length])).toEqual([[(512 + 256) * 4, 1024], [(1024 + 256) * 4, 1024]]);
    expect(runs?.every((r) => r.buffer === f32.buffer)).toBe(true);
  });

  it('merges rows that are contiguous in the array into one run', () => {
    const runs = chunkRuns(chainOf('float32', [2, 512]), { data: f32, offset: 1024, stride: [512, 1] }, whole([2, 512]), [2, 512]);
    expect(runs?.map((r) => [r.byteOffset, r.length])).toEqual([[4096, 4096]]);
  });

  it('declines partial or reordered chunks, short runs, strided rows and values too small', () => {
    const chain = chainOf('float32', [2, 256]);
    const src = { data: f32, offset: 0, stride: [512, 1] };
    const [rows, cols] = whole([2, 256]);
    expect(chunkRuns(chain, src, [rows!, { ...cols!, count: 255 }], [2, 256])).toBeUndefined();
    expect(chunkRuns(chain, src, [{ ...rows!, start: 1, step: -1 }, cols!], [2, 256])).toBeUndefined();
    expect(chunkRuns(chainOf('float32', [2, 128]), src, whole([2, 128]), [2, 128])).toBeUndefined(); // 512-byte runs
    expect(chunkRuns(chain, { data: f32, offset: 0, stride: [512, 2] }, whole([2, 256]), [2, 256])).toBeUndefined();
    expect(chunkRuns(chain, { data: f32, offset: 4 * 512 - 256, stride: [512, 1] }, whole([2, 256]), [2, 256])).toBeUndefined();
  });

  it('applies only to chains that store memory as it is', () => {
    const shape = [2, 256];
    expect(storedAsInMemory(chainOf('float32', shape))).toBe(true);
    expect(storedAsInMemory(chainOf('uint8', shape, [BE]))).toBe(true); // one byte: nothing to swap
    expect(storedAsInMemory(chainOf('float32', shape, [BE]))).toBe(false);
    expect(storedAsInMemory(chainOf('float16', shape))).toBe(false);
    expect(storedAsInMemory(chainOf('float32', shape, [LE, { name: 'crc32c' }]))).toBe(false);
    expect(storedAsInMemory(chainOf('float32', shape, [{ name: 'transpose', configuration: { order: [1, 0] } }, LE]))).toBe(false);
    expect(chunkRuns(chainOf('float32', shape, [BE]), { data: f32, offset: 0, stride: [512, 1] }, whole(shape), shape)).toBeUndefined();
  });
});

/** Every stored key's bytes. */
async function contents(store: ZarrStore): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for await (const key of store.list()) out.set(key, Buffer.from((await store.get(key))!).toString('hex'));
  return out;
}

/** A directory store whose setParts calls are counted. */
function countedDirStore(): { store: ZarrStore; partsWrites: () => number } {
  const store = openStore(path.join(scratch, `d${dirs++}`));
  const setParts = store.setParts!;
  let n = 0;
  Object.assign(store, { setParts: (key: string, parts: readonly Uint8Array[]) => (n++, setParts(key, parts)) });
  return { store, partsWrites: () => n };
}

interface Case {
  dataType: string;
  codecs: CodecMetadata[];
  shape: number[];
  chunkShape: number[];
  selection: Selection | undefined;
  seed: number;
}

const DTYPES = ['uint8', 'int16', 'float32', 'float64', 'complex64', 'int64', 'bool', 'float16'];

/** Shapes whose inner chunk rows are at least one run long, with ragged edges and contiguous rows among them. */
const caseArb: fc.Arbitrary<Case> = fc.record({
  dataType: fc.constantFrom(...DTYPES),
  codecs: fc.constantFrom<CodecMetadata[]>([LE], [BE], [LE, { name: 'zstd', configuration: { level: 1, checksum: false } }]),
  outer: fc.array(fc.record({ n: fc.integer({ min: 1, max: 5 }), c: fc.integer({ min: 1, max: 3 }) }), { minLength: 0, maxLength: 2 }),
  innerChunks: fc.integer({ min: 1, max: 2 }),
  ragged: fc.constantFrom(0, 0, 7),
  partial: fc.boolean(),
  seed: fc.nat(),
}).map(({ dataType, codecs, outer, innerChunks, ragged, partial, seed }) => {
  const item = parseDataType(dataType).itemSize;
  const rowChunk = Math.ceil(MIN_RUN_BYTES / item);
  const shape = [...outer.map((o) => o.n), rowChunk * innerChunks + ragged];
  const chunkShape = [...outer.map((o) => o.c), rowChunk];
  const selection = partial ? shape.map((n) => slice(Math.floor(n / 3), n)) : undefined;
  return { dataType, codecs, shape, chunkShape, selection, seed };
});

/** Deterministic values of the data type for `n` elements (bool: 0/1). */
function valuesOf(dataType: string, n: number, seed: number): TypedArray {
  const dt = parseDataType(dataType);
  const data = dt.allocate(n) as TypedArray;
  const bytes = new Uint8Array(data.buffer);
  let x = seed | 1;
  for (let i = 0; i < bytes.length; i++) {
    x ^= x << 13; x ^= x >>> 17; x ^= x << 5;
    bytes[i] = x & 0xff;
  }
  if (dataType === 'bool') bytes.forEach((b, i) => (bytes[i] = b & 1));
  if (dt.kind === 'float' || dt.kind === 'complex') {
    // Finite, exactly representable values: NaN payloads and float16 rounding are not this test's subject.
    const floats = data as Float32Array;
    floats.forEach((_, i) => (floats[i] = ((i * 7 + seed) % 2048) - 1024));
  }
  return data;
}

function elementsOf(shape: readonly number[], selection: Selection | undefined): number {
  return resultShape(normalizeSelection(selection, shape)).reduce((a, b) => a * b, 1);
}

/** The array after writing `value` into `initial` at the case's selection, worked out element by element. */
function expectedAfter(c: Case, initial: TypedArray, value: TypedArray): Uint8Array {
  const dt = parseDataType(c.dataType);
  const item = dt.lanes * dt.laneBytes; // bytes of one element in memory
  const source = new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
  const from = c.shape.map((n) => (c.selection ? Math.floor(n / 3) : 0));
  const box = c.shape.map((n, d) => n - (from[d] ?? 0));
  const out = new Uint8Array(initial.buffer.slice(0));
  const n = c.shape.reduce((a, b) => a * b, 1);
  for (let flat = 0; flat < n; flat++) {
    let rest = flat;
    let inside = true;
    let at = 0;
    for (let d = c.shape.length - 1, scale = 1; d >= 0; d--) {
      const size = c.shape[d] ?? 1;
      const coord = rest % size;
      rest = Math.floor(rest / size);
      const offset = coord - (from[d] ?? 0);
      if (offset < 0) inside = false;
      at += offset * scale;
      scale *= box[d] ?? 1;
    }
    if (inside) out.set(source.subarray(at * item, at * item + item), flat * item);
  }
  return out;
}

describe('parallel chunk writes', () => {
  it('leave the same bytes as a serial write through the copying path', async () => {
    let partsUsed = 0;
    await fc.assert(
      fc.asyncProperty(caseArb, async (c) => {
        const fillValue = zeroOf(c.dataType);
        const create = (store: ZarrStore) => ZarrArray.create(store, '/a', { shape: c.shape, chunkShape: c.chunkShape, dataType: c.dataType, fillValue, codecs: c.codecs });
        const initial = valuesOf(c.dataType, c.shape.reduce((a, b) => a * b, 1), c.seed + 1);
        const value = valuesOf(c.dataType, elementsOf(c.shape, c.selection), c.seed);
        const serial = new StorageStore(new MemoryStorage());
        const serialArray = await create(serial);
        await serialArray.set(undefined, initial, { concurrency: 1 });
        await serialArray.set(c.selection, value, { concurrency: 1 });
        const { store: parallel, partsWrites } = countedDirStore();
        const parallelArray = await create(parallel);
        await parallelArray.set(undefined, initial, { concurrency: 8 });
        await parallelArray.set(c.selection, value, { concurrency: 8 });
        expect(await contents(parallel)).toEqual(await contents(serial));
        const read = (await parallelArray.get()).data as TypedArray;
        expect(Buffer.from(read.buffer, read.byteOffset, read.byteLength).equals(expectedAfter(c, initial, value))).toBe(true);
        partsUsed += partsWrites();
      }),
      { numRuns: RUNS, seed: 19 },
    );
    expect(partsUsed).toBeGreaterThan(0); // the property did exercise the runs path
  });

  it('writes whole uncompressed chunks from the caller\'s array, and erases all-fill ones', async () => {
    const { store, partsWrites } = countedDirStore();
    const array = await ZarrArray.create(store, '/a', { shape: [4, 512], chunkShape: [2, 256], dataType: 'float32', fillValue: 0, codecs: [LE] });
    const value = Float32Array.from({ length: 4 * 512 }, (_, i) => (i < 1024 ? i + 1 : 0)); // rows 2-3 all fill
    await array.set(undefined, value);
    expect(partsWrites()).toBe(2);
    const keys: string[] = [];
    for await (const key of store.listPrefix('a/c/')) keys.push(key);
    expect(keys.sort()).toEqual(['a/c/0/0', 'a/c/0/1']);
    expect(Array.from((await array.get()).data as Float32Array)).toEqual(Array.from(value));
    const first = await store.get('a/c/0/0');
    const expected = new Float32Array(512);
    for (let r = 0; r < 2; r++) expected.set(value.subarray(r * 512, r * 512 + 256), r * 256);
    expect(Buffer.from(first!).equals(Buffer.from(expected.buffer))).toBe(true);
  });
});
