// Issue 33: a pooled `get(..., { decode: 'cf' })` decodes its chunks' values on the decode-pool
// workers (src/format/cf/region.ts, run there with the read's CfValueCoding) and gives the same
// bits as the read decoded in this thread: random packing attributes (scale, offset, fill and
// missing values, _Unsigned), stored types, codecs, selections and missing chunks, over a store
// of local files (the worker reads the file) and one in memory (the bytes are sent). The pool's
// counter shows the workers took the chunks.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { openStore } from '../../../src/engine/api.ts';
import { ZarrArray } from '../../../src/engine/array.ts';
import { DecodePool } from '../../../src/engine/decode-pool.ts';
import { slice, type Selection } from '../../../src/engine/selection.ts';
import type { CodecMetadata } from '../../../src/format/codecs/types.ts';
import type { JsonValue } from '../../../src/format/json.ts';
import type { TypedArray } from '../../../src/format/zarr/data-types.ts';
import { warmPool } from '../../support/decode-pool.ts';

/** A pool every read uses (a real one uses workers for reads of 8 MiB and more only). */
class EveryReadPool extends DecodePool {
  override planFor(): 'pool' {
    return 'pool';
  }
}

const pool = new EveryReadPool(2);
const dir = mkdtempSync(path.join(os.tmpdir(), 'floe-cf-pool-'));
afterAll(async () => {
  await pool.close();
  rmSync(dir, { recursive: true, force: true });
});

const RUNS = Number(process.env.FLOE_CF_POOL_RUNS ?? 12);
const CHUNK = [64, 2048]; // 131,072 elements: every stored type's chunk is worth a worker
const TYPES = ['int8', 'uint8', 'int16', 'uint16', 'int32', 'float32', 'float64'] as const;
const RANGE: Record<string, [number, number]> = { int8: [-128, 127], uint8: [0, 255], int16: [-32768, 32767], uint16: [0, 65535], int32: [-(2 ** 31), 2 ** 31 - 1], float32: [-1e6, 1e6], float64: [-1e9, 1e9] };

const bits = (a: TypedArray) => Buffer.from(a.buffer, a.byteOffset, a.byteLength);

/** Deterministic values from `seed`, a few of them each of `special` (fill and missing values). */
function values(n: number, dataType: string, seed: number, special: readonly number[]): number[] {
  const [lo, hi] = RANGE[dataType]!;
  let x = seed >>> 0 || 1;
  return Array.from({ length: n }, () => {
    x ^= x << 13; x ^= x >>> 17; x ^= x << 5; x >>>= 0;
    if (special.length > 0 && x % 97 === 0) return special[x % special.length]!;
    const v = lo + (x / 2 ** 32) * (hi - lo);
    return dataType.startsWith('float') ? v : Math.round(v);
  });
}

const attrs = fc.record({
  dataType: fc.constantFrom(...TYPES),
  scale: fc.option(fc.constantFrom(0.01, 0.5, 2, 1e-7, -0.25), { nil: undefined }),
  offset: fc.option(fc.constantFrom(273.15, -1000, 0.1, 0), { nil: undefined }),
  fill: fc.option(fc.integer({ min: -128, max: 127 }), { nil: undefined }),
  missing: fc.array(fc.integer({ min: -200, max: 200 }), { maxLength: 3 }),
  unsigned: fc.constantFrom(undefined, 'true', 'false'),
  gzip: fc.boolean(),
  rows: fc.integer({ min: 65, max: 200 }),
  cols: fc.integer({ min: 2049, max: 5000 }),
  skipLastRows: fc.boolean(),
  seed: fc.integer(),
  selection: fc.constantFrom('all', 'strided', 'row'),
});

describe("pooled decode: 'cf' reads", () => {
  it('decode on the workers, bit for bit as in this thread (NaN positions identical)', { timeout: 60_000 }, async () => {
    await warmPool(pool);
    let run = 0;
    await fc.assert(
      fc.asyncProperty(attrs, async (p) => {
        const attributes: Record<string, JsonValue> = {};
        if (p.scale !== undefined) attributes.scale_factor = p.scale;
        if (p.offset !== undefined) attributes.add_offset = p.offset;
        if (p.fill !== undefined) attributes._FillValue = p.fill;
        if (p.missing.length > 0) attributes.missing_value = p.missing;
        if (p.unsigned !== undefined) attributes._Unsigned = p.unsigned;
        const codecs: CodecMetadata[] = [{ name: 'bytes', configuration: { endian: 'little' } }, ...(p.gzip ? [{ name: 'gzip', configuration: { level: 1 } }] : [])];
        const shape = [p.rows, p.cols];
        const meta = { shape, chunkShape: CHUNK, dataType: p.dataType, attributes, codecs };
        const stores = [openStore(path.join(dir, `r${run++}`), { decodedChunkBytes: 0 }), openStore(':memory:', { decodedChunkBytes: 0 })];
        const written = p.skipLastRows ? CHUNK[0]! : p.rows; // the chunks below stay missing: fill value
        const [lo, hi] = RANGE[p.dataType]!;
        const special = [p.fill ?? 0, ...p.missing].filter((v) => v >= lo && v <= hi);
        const data = values(written * p.cols, p.dataType, p.seed, special);
        const selection: Selection | undefined = p.selection === 'all' ? undefined : p.selection === 'row' ? [3, slice(1, p.cols - 1)] : [slice(p.rows - 1, 0, -3), slice(0, p.cols, 2)];
        for (const store of stores) {
          const a = await ZarrArray.create(store, '/v', meta);
          const typed = a.dataType.allocate(data.length) as TypedArray;
          (typed as Float64Array).set(data);
          await a.set([slice(0, written), slice(0, p.cols)], { data: typed, shape: [written, p.cols], stride: [p.cols, 1] });
          const sent = pool.chunksSent;
          const pooled = await a.get(selection, { decode: 'cf', decodePool: pool });
          const inline = await a.get(selection, { decode: 'cf', decodePool: false });
          expect(pooled.shape).toEqual(inline.shape);
          expect(pooled.data.constructor).toBe(inline.data.constructor);
          expect(bits(pooled.data as TypedArray).equals(bits(inline.data as TypedArray))).toBe(true);
          // Every written chunk the selection touches went to a worker (missing ones decode here).
          if (pooled.cf.values.output !== undefined) expect(pool.chunksSent - sent).toBeGreaterThanOrEqual(p.selection === 'row' ? Math.floor((p.cols - 2) / CHUNK[1]!) + 1 : Math.ceil(p.cols / CHUNK[1]!));
        }
      }),
      { numRuns: RUNS },
    );
  });

  it('decode into a caller\'s result of the decoded type (shared: by the workers), refusing other types', async () => {
    await warmPool(pool);
    const attributes = { scale_factor: 0.01, add_offset: 273.15, _FillValue: -32767 };
    const a = await ZarrArray.create(openStore(path.join(dir, 'out'), { decodedChunkBytes: 0 }), '/v', { shape: [128, 4096], chunkShape: CHUNK, dataType: 'int16', attributes });
    const stored = new Int16Array(values(128 * 4096, 'int16', 7, [-32767]));
    await a.set(undefined, { data: stored, shape: [128, 4096], stride: [4096, 1] });
    const inline = await a.get(undefined, { decode: 'cf', decodePool: false });
    const out = new Float64Array(new SharedArrayBuffer(128 * 4096 * 8));
    for (let round = 0; round < 2; round++) {
      const sent = pool.chunksSent;
      const pooled = await a.get(undefined, { decode: 'cf', decodePool: pool, out });
      expect(pooled.data).toBe(out);
      expect(pool.chunksSent - sent).toBe(4);
      expect(bits(out).equals(bits(inline.data as Float64Array))).toBe(true);
      out.fill(0);
    }
    const plain = new Float64Array(128 * 4096); // not shared: decoded in this thread
    expect(bits((await a.get(undefined, { decode: 'cf', decodePool: pool, out: plain })).data as Float64Array).equals(bits(inline.data as Float64Array))).toBe(true);
    await expect(a.get(undefined, { decode: 'cf', out: new Float32Array(128 * 4096) })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', message: expect.stringContaining('pass a Float64Array') });
    await expect(a.get([slice(0, 1)], { decode: 'cf', out })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    const raw = await ZarrArray.create(openStore(':memory:'), '/r', { shape: [4], chunkShape: [4], dataType: 'int16' });
    await expect(raw.get(undefined, { decode: 'cf', out: new Float32Array(4) })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', message: expect.stringContaining('takes no `out`') });
  });

  it('write past 4 GiB of a shared result (sent as its buffer: a posted 4 GiB view arrives empty)', async () => {
    await warmPool(pool);
    const a = await ZarrArray.create(openStore(':memory:'), '/v', { shape: [64], chunkShape: [64], dataType: 'int16', attributes: { scale_factor: 0.5, _FillValue: -1 } });
    const stored = Int16Array.from({ length: 64 }, (_, i) => (i === 5 ? -1 : i * 3));
    const bytes = new Uint8Array(stored.buffer.slice(0));
    // Virtual memory only: the pages the worker writes are the only ones touched.
    const big = new Float64Array(new SharedArrayBuffer(2 ** 32 + 1024));
    const offset = 2 ** 29 + 8; // past 4 GiB
    const projections = [{ chunk: 0, start: 0, step: 1, count: 64, outStart: 0 }];
    const coding = (await a.cfVariable()).values;
    await pool.decodeInto(a.chain, bytes.slice(), { view: { data: big, offset, stride: [1] }, projections, cf: coding });
    expect(Array.from(big.subarray(offset, offset + 64))).toEqual(Array.from(stored, (v) => (v === -1 ? NaN : v * 0.5)));
    const raw = new Int16Array(new SharedArrayBuffer(2 ** 32 + 1024)); // the stored-type path, 4 GiB + 1 KiB
    await pool.decodeInto(a.chain, bytes.slice(), { view: { data: raw, offset: 2 ** 31 + 4, stride: [1] }, projections });
    expect(Array.from(raw.subarray(2 ** 31 + 4, 2 ** 31 + 68))).toEqual(Array.from(stored));
  });
});
