// Issue 17, stage 2: shapes, chunk sizes, shard sizes, dimension counts and names have explicit
// maxima, enforced when metadata is read and when an array is created, each a FloeError saying
// which limit and what to do (huge shapes used to end in RangeError, long names in ENAMETOOLONG).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isFloeError, type FloeError } from '../../src/errors.ts';
import { configureLimits, DEFAULT_LIMITS, MAX_CHUNK_BYTES, MAX_INNER_CHUNKS, MAX_NODE_NAME_BYTES, MAX_PATH_DEPTH, MAX_RANK } from '../../src/format/limits.ts';
import { parseNodeMetadata } from '../../src/format/zarr/metadata.ts';
import { parseV1Metadata } from '../../src/format/zarr-v1/meta.ts';
import { createArray, createGroup, openArray, openStore, slice, V1Array } from '../../src/index.ts';
import { HOSTILE_SEED, hostileRuns } from '../support/hostile-runs.ts';
import { refusal } from '../support/error-code.ts';

const RUNS = hostileRuns(200);

const zarrJson = (shape: readonly number[], chunkShape: readonly number[], extra = ''): string =>
  JSON.stringify({
    zarr_format: 3, node_type: 'array', shape, data_type: 'float64',
    chunk_grid: { name: 'regular', configuration: { chunk_shape: chunkShape } },
    chunk_key_encoding: { name: 'default', configuration: { separator: '/' } },
    fill_value: 0, codecs: [{ name: 'bytes', configuration: { endian: 'little' } }],
  }).replace(/}$/, extra + '}');

describe('array shape maxima', () => {
  it(`refuses more than ${MAX_RANK} dimensions when reading and when creating`, async () => {
    const ones = (n: number) => Array<number>(n).fill(1);
    expect(parseNodeMetadata(zarrJson(ones(MAX_RANK), ones(MAX_RANK))).nodeType).toBe('array');
    const read = await refusal(async () => parseNodeMetadata(zarrJson(ones(MAX_RANK + 1), ones(MAX_RANK + 1)), 'a/zarr.json'));
    expect(read.details).toEqual({ kind: 'rank', limit: MAX_RANK, actual: MAX_RANK + 1 });
    expect(read.where).toBe('a/zarr.json');
    const created = await refusal(() => createArray(openStore(':memory:'), '/a', { shape: ones(64), chunkShape: ones(64), dataType: 'uint8' }));
    expect(created.details).toMatchObject({ kind: 'rank', actual: 64 });
  });

  it('refuses shapes past 2^53 - 1 elements and chunks past MAX_CHUNK_BYTES, never a RangeError', async () => {
    const store = openStore(':memory:');
    const huge = await refusal(() => createArray(store, '/a', { shape: [2 ** 40, 2 ** 40], chunkShape: [1, 1], dataType: 'uint8' }));
    expect(huge.details).toMatchObject({ kind: 'elements' });
    const chunk = await refusal(() => createArray(store, '/b', { shape: [1e15], chunkShape: [1e15], dataType: 'float64' }));
    expect(chunk.details).toEqual({ kind: 'chunk-bytes', limit: MAX_CHUNK_BYTES, actual: 8e15 });
    // The same array metadata written by someone else is refused when opened.
    await store.set('c/zarr.json', new TextEncoder().encode(zarrJson([1e15], [1e15])));
    expect((await refusal(() => openArray(store, '/c'))).details).toMatchObject({ kind: 'chunk-bytes' });
    // A big array with small chunks is fine; a selection too large to allocate is a FloeError.
    const big = await createArray(store, '/d', { shape: [1e12], chunkShape: [1000], dataType: 'float64' });
    expect((await refusal(() => big.get())).details).toMatchObject({ kind: 'allocation', actual: 8e12 });
  });

  it(`refuses shards of more than ${MAX_INNER_CHUNKS} inner chunks, but reads big shards part by part`, async () => {
    const store = openStore(':memory:');
    const sharding = (inner: number) => [{ name: 'sharding_indexed', configuration: { chunk_shape: [inner], codecs: [{ name: 'bytes' }], index_codecs: [{ name: 'bytes', configuration: { endian: 'little' } }] } }];
    const many = await refusal(() => createArray(store, '/a', { shape: [2 ** 30], chunkShape: [2 ** 30], dataType: 'uint8', codecs: sharding(1) }));
    expect(many.details).toMatchObject({ kind: 'inner-chunks', limit: MAX_INNER_CHUNKS, actual: 2 ** 30 });
    // A 4 GiB shard of 1 MiB inner chunks: over MAX_CHUNK_BYTES whole, read inner chunk by inner chunk.
    const shards = await createArray(store, '/b', { shape: [2 ** 32], chunkShape: [2 ** 32], dataType: 'uint8', codecs: sharding(2 ** 20) });
    const part = await shards.get([slice(10, 20)]);
    expect(Array.from(part.data as Uint8Array)).toEqual(Array<number>(10).fill(0));
    // Writing merges a whole shard in memory: refused with the chunk-bytes limit, not a RangeError.
    expect((await refusal(() => shards.set([5], 1))).details).toMatchObject({ kind: 'chunk-bytes' });
  });

  it('holds Zarr v1 metadata to the same maxima', async () => {
    const meta = (shape: number[], chunks: number[]) =>
      JSON.stringify({ zarr_format: 1, shape, chunks, dtype: '<f8', compression: 'none', compression_opts: null, fill_value: 0, order: 'C' });
    expect(parseV1Metadata(meta([10], [5])).shape).toEqual([10]);
    expect((await refusal(async () => parseV1Metadata(meta(Array<number>(40).fill(1), Array<number>(40).fill(1))))).details).toMatchObject({ kind: 'rank' });
    const dir = mkdtempSync(path.join(tmpdir(), 'floe-v1-limits-'));
    try {
      const err = await refusal(() => V1Array.create(openStore(dir), { shape: [1e15], chunks: [1e15], dtype: '<f8' }));
      expect(err.details).toMatchObject({ kind: 'chunk-bytes' });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses random oversized shapes with LIMIT_EXCEEDED and accepts the rest (fuzz)', () => {
    const dim = fc.oneof(fc.integer({ min: 1, max: 10 }), fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }));
    fc.assert(
      fc.property(fc.array(dim, { minLength: 1, maxLength: 40 }), fc.array(dim, { minLength: 1, maxLength: 40 }), (shape, chunks) => {
        const chunkShape = shape.map((_, i) => chunks[i % chunks.length]!);
        let outcome: string;
        try {
          parseNodeMetadata(zarrJson(shape, chunkShape));
          outcome = 'ok';
        } catch (err) {
          outcome = isFloeError(err) ? err.code : `non-Floe: ${String(err)}`;
        }
        const elements = shape.reduce((a, b) => a * b, 1);
        const expected = shape.length > MAX_RANK || elements > Number.MAX_SAFE_INTEGER ? 'LIMIT_EXCEEDED' : 'ok';
        expect(outcome).toBe(expected);
      }),
      { numRuns: RUNS, seed: HOSTILE_SEED },
    );
  });
});

describe('names and paths', () => {
  it(`refuses node names over ${MAX_NODE_NAME_BYTES} bytes of UTF-8 with INVALID_NAME, not ENAMETOOLONG`, async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'floe-names-'));
    try {
      const store = openStore(dir);
      await createGroup(store, '/' + 'x'.repeat(MAX_NODE_NAME_BYTES));
      const err = await refusal(() => createGroup(store, '/' + 'x'.repeat(MAX_NODE_NAME_BYTES + 1)));
      expect(err.code).toBe('INVALID_NAME');
      expect(err.details).toEqual({ rule: 'too-long' });
      // 86 three-byte characters: 258 bytes in 86 UTF-16 units.
      expect((await refusal(() => createGroup(store, '/' + '\u20ac'.repeat(86)))).details).toEqual({ rule: 'too-long' });
      expect((await refusal(() => openArray(store, '/' + 'y'.repeat(300)))).code).toBe('INVALID_NAME');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it(`refuses paths of more than ${MAX_PATH_DEPTH} names`, async () => {
    const store = openStore(':memory:');
    await createGroup(store, '/' + Array<string>(MAX_PATH_DEPTH).fill('g').join('/'));
    const err = await refusal(() => createGroup(store, '/' + Array<string>(MAX_PATH_DEPTH + 1).fill('g').join('/')));
    expect(err.details).toEqual({ kind: 'path-depth', limit: MAX_PATH_DEPTH, actual: MAX_PATH_DEPTH + 1 });
    expect((await refusal(() => openArray(store, '/a'.repeat(10_000)))).code).toBe('LIMIT_EXCEEDED');
  });
});

describe('chunks per call (chunksPerCall)', () => {
  it('is counted from the selection before anything is listed, and can be raised', async () => {
    const store = openStore(':memory:');
    const array = await createArray(store, '/a', { shape: [10], chunkShape: [1], dataType: 'int8', fillValue: 0 });
    try {
      configureLimits({ chunksPerCall: 4 });
      const err = await refusal(() => array.get([slice(0, 5)]));
      expect(err).toMatchObject({ code: 'LIMIT_EXCEEDED', details: { kind: 'chunks', limit: 4, actual: 5 } });
      expect(err.message).toMatch(/chunksPerCall/);
      expect(Array.from((await array.get([slice(0, 4)])).data as Int8Array)).toEqual([0, 0, 0, 0]);
      await expect(array.resize([2])).rejects.toMatchObject({ code: 'LIMIT_EXCEEDED', details: { kind: 'chunks', limit: 4 } });
      configureLimits({ chunksPerCall: 8 });
      await array.set([slice(0, 8)], 1);
      expect(Array.from((await array.get([slice(0, 8)])).data as Int8Array)).toEqual([1, 1, 1, 1, 1, 1, 1, 1]);
    } finally {
      configureLimits(DEFAULT_LIMITS);
    }
  });
});
