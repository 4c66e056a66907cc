// Runs a prepared plan: issue the planned requests with bounded concurrency (one request for
// identical ones of concurrent queries), cache what they return, then let the engine read
// through a PlannedStore (so decoding, sharding and copying are the engine's own code).
// A hot array whose chunks fit the decoded-chunk cache (see plan/decoded-pass.ts) is read unit by
// unit (chunk, or inner chunk of a shard): each unit is decoded once, cached, and its selected
// part copied into the result. Other arrays are read box by box (one engine read per box decodes
// with one scratch buffer, about 3x cheaper than unit reads when nothing is cached yet); beyond
// the first, boxes go to scratch arrays copied into place.
import { loadCodecsMentionedIn } from '../../format/codecs/registry.ts';
import { rangeCacheKey } from '../../cache/read-caches.ts';
import { sharedLoad } from '../../engine/abort.ts';
import type { ZarrArray } from '../../engine/array.ts';
import { mapLimit } from '../../engine/storage/limiter.ts';
import type { DecodePool } from '../../engine/decode-pool.ts';
import { dot, zipMap } from '../../engine/indexing.ts';
import { forEachProduct, projectDim, slice, type ChunkProjection } from '../../engine/selection.ts';
import type { ZarrStore } from '../../engine/store.ts';
import type { ArrayData } from '../../format/zarr/data-types.ts';
import { cStrides, copyStrided, product, type NdArray, type StridedView } from '../../format/zarr/ndarray.ts';
import { copyFromChunk, shiftView } from '../../format/zarr/projection.ts';
import { totalCount } from '../metered-store.ts';
import type { UnitGrid } from '../plan/decoded-pass.ts';
import { addSpan, type RequestJob } from '../plan/fetch-pass.ts';
import type { PreparedArray, PreparedQuery } from '../plan/planner.ts';
import type { ArrayResult, ExecutionReport } from '../result-types.ts';
import type { UnitDecoder } from './cf-results.ts';
import { PlannedStore } from './planned-store.ts';

export interface ExecuteOptions {
  /** Worker pool for decompressing big chunks; default false (decode inline). */
  decodePool?: DecodePool | false | undefined;
  /** Clock for the report's elapsed time; injectable for tests. Default performance.now. */
  now?: (() => number) | undefined;
  /** 'cf': decode each array's values (docs/cf.md); default 'none'. */
  decode?: 'none' | 'cf' | undefined;
  /** With `decode: 'cf'`: keep the stored values as `cf.stored`. */
  keepStored?: boolean | undefined;
}

export async function executePrepared(prep: PreparedQuery, options: ExecuteOptions = {}): Promise<{ arrays: ArrayResult[]; report: ExecutionReport }> {
  const now = options.now ?? (() => performance.now());
  const started = now();
  const data = prep.meter.store('data');
  await mapLimit(prep.jobs, prep.concurrency, (job) => runJob(prep, job, data));
  const store = new PlannedStore(prep.prefetched, prep.meter.store('unplanned'));
  const arrays: ArrayResult[] = [];
  for (const a of prep.arrays) {
    prep.meter.checkAborted();
    await loadCodecsMentionedIn(a.array.metadata.codecs);
    const array = a.array.overStore(store, { concurrency: prep.concurrency, decodePool: options.decodePool ?? false });
    const cf = options.decode === 'cf' ? await import('./cf-results.ts') : undefined;
    // Values that decode do so inside the chunk reads (box by box) or as cached units are copied
    // into the result (unit by unit): no stored-type result.
    const fused = cf !== undefined && options.keepStored !== true && (await cf.decodesInRead(a.array));
    const out = a.units ? await readByUnits(prep, array, a, a.units, fused ? await cf.unitDecoder(a.array) : undefined)
      : fused ? await cf.readDecodedBoxes(array, a.boxes, a.resultShape, prep.meter.signal) : await readByBoxes(array, a, prep.meter.signal);
    const element = (await array.vlenArrayElement())?.dataType?.name;
    const result: ArrayResult = { path: array.path, dtype: array.dtype, ...(element && { elementDtype: element }), dims: a.dims, shape: [...a.resultShape], data: out };
    arrays.push(cf ? await cf.decodeResult(a.array, result, options.keepStored === true, fused) : result);
  }
  const fetched = prep.meter.snapshot();
  return { arrays, report: { fetched, total: totalCount(fetched), cacheHits: { ...prep.cacheHits }, elapsedMs: now() - started } };
}

async function runJob(prep: PreparedQuery, job: RequestJob, store: ZarrStore): Promise<void> {
  const { key, range } = job.request;
  const { caches, scope } = prep.source;
  const fetch = () => (range ? store.getRange(key, range) : store.get(key));
  // Identical requests of concurrent queries share one fetch: another query's abort does not fail this one.
  const shareKey = scope + (range ? rangeCacheKey(key, range.offset, range.length) : key);
  const bytes = caches ? await sharedLoad(() => caches.share(shareKey, fetch), prep.meter.signal) : await fetch();
  if (!range) {
    prep.prefetched.whole.set(key, bytes ?? null);
    if (bytes) caches?.chunks.set(scope + key, bytes);
    return;
  }
  // A shorter answer means the object changed since planning; the engine's reads then fall
  // through to the store (counted as unplanned) and report the damage themselves.
  if (!bytes || bytes.length !== range.length) return;
  addSpan(prep.prefetched, key, range.offset, bytes);
  for (const p of job.pieces) {
    caches?.chunks.set(scope + rangeCacheKey(key, p.offset, p.length), bytes.subarray(p.offset - range.offset, p.offset - range.offset + p.length));
  }
}

async function readByBoxes(array: ZarrArray, a: PreparedArray, signal: AbortSignal | undefined): Promise<ArrayData> {
  const dt = array.dataType;
  const out = dt.allocate(product(a.resultShape));
  const stride = cStrides(a.resultShape);
  const single = a.boxes.length === 1;
  for (const box of a.boxes) {
    const selection = box.runs.map((r) => slice(r.start, r.start + (r.count - 1) * r.step + 1, r.step));
    if (single) {
      await array.get(selection, { out, signal });
      continue;
    }
    const counts = box.runs.map((r) => r.count);
    const part = dt.allocate(product(counts));
    await array.get(selection, { out: part, signal });
    const offset = dot(box.outStart, stride);
    copyStrided({ data: part, offset: 0, stride: cStrides(counts) }, { data: out, offset, stride }, counts, dt.lanes);
  }
  return out;
}

/** One decode unit and the parts of the result it fills. */
interface UnitUse {
  readonly coords: readonly number[];
  readonly parts: { readonly ps: readonly ChunkProjection[]; readonly dst: StridedView }[];
}

async function readByUnits(prep: PreparedQuery, array: ZarrArray, a: PreparedArray, grid: UnitGrid, decoder?: UnitDecoder): Promise<ArrayData> {
  const out = decoder ? decoder.allocate(product(a.resultShape)) : array.dataType.allocate(product(a.resultShape));
  const stride = cStrides(a.resultShape);
  const units = new Map<string, UnitUse>();
  for (const box of a.boxes) {
    const boxView = { data: out, offset: dot(box.outStart, stride), stride };
    const perDim = zipMap(box.runs, grid.shape, (r, size) => projectDim({ start: r.start, step: r.step, count: r.count, drop: false }, size));
    forEachProduct(perDim, (ps) => {
      const coords = ps.map((p) => p.chunk);
      const key = grid.key(coords);
      let unit = units.get(key);
      if (!unit) units.set(key, (unit = { coords, parts: [] }));
      unit.parts.push({ ps, dst: shiftView(boxView, ps) });
    });
  }
  await mapLimit([...units], prep.concurrency, async ([key, unit]) => {
    const decoded = await decodedUnit(prep, array, grid, key, unit.coords);
    for (const part of unit.parts) {
      if (decoder) decoder.copy(decoded, part.ps, part.dst);
      else copyFromChunk(decoded, part.ps, part.dst, array.dataType.lanes);
    }
  });
  return out;
}

/** A unit decoded: pinned while planning, else read by the engine once and cached. */
function decodedUnit(prep: PreparedQuery, array: ZarrArray, grid: UnitGrid, key: string, coords: readonly number[]): Promise<NdArray> {
  const pinned = prep.decoded.get(key);
  if (pinned) return Promise.resolve(pinned);
  const decode = () => {
    prep.meter.checkAborted();
    return array.get(grid.region(coords));
  };
  return sharedLoad(() => prep.source.caches!.decodedChunks.load(prep.source.scope + key, decode), prep.meter.signal);
}
