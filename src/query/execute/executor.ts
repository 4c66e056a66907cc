// Runs a prepared plan: issue the planned requests with bounded concurrency, cache what they
// return, then let the engine read each box through a PlannedStore (so decoding, sharding and
// copying are the engine's own code). Boxes beyond the first are read into scratch arrays and
// copied into place; a query with one box per array reads straight into its result.
import { rangeCacheKey } from '../../cache/read-caches.ts';
import { ZarrArray } from '../../engine/array.ts';
import { mapLimit } from '../../engine/concurrency.ts';
import type { DecodePool } from '../../engine/decode-pool.ts';
import { slice } from '../../engine/selection.ts';
import type { ZarrStore } from '../../engine/store.ts';
import type { ArrayData } from '../../format/zarr/data-types.ts';
import { cStrides, copyStrided, product } from '../../format/zarr/ndarray.ts';
import { totalCount } from '../metered-store.ts';
import { addSpan, type RequestJob } from '../plan/fetch-pass.ts';
import type { PreparedArray, PreparedQuery } from '../plan/planner.ts';
import type { ArrayResult, ExecutionReport } from '../result-types.ts';
import { PlannedStore } from './planned-store.ts';

export interface ExecuteOptions {
  /** Worker pool for decompressing big chunks; default false (decode inline). */
  decodePool?: DecodePool | false;
  /** Clock for the report's elapsed time; injectable for tests. Default performance.now. */
  now?: () => number;
}

export async function executePrepared(prep: PreparedQuery, options: ExecuteOptions = {}): Promise<{ arrays: ArrayResult[]; report: ExecutionReport }> {
  const now = options.now ?? (() => performance.now());
  const started = now();
  const data = prep.meter.store('data');
  await mapLimit(prep.jobs, prep.concurrency, (job) => runJob(prep, job, data));
  const store = new PlannedStore(prep.prefetched, prep.meter.store('unplanned'));
  const arrays: ArrayResult[] = [];
  for (const a of prep.arrays) arrays.push(await readArray(store, a, prep.concurrency, options.decodePool ?? false));
  const fetched = prep.meter.snapshot();
  return { arrays, report: { fetched, total: totalCount(fetched), cacheHits: { ...prep.cacheHits }, elapsedMs: now() - started } };
}

async function runJob(prep: PreparedQuery, job: RequestJob, store: ZarrStore): Promise<void> {
  const { key, range } = job.request;
  const { caches, scope } = prep.source;
  if (!range) {
    const bytes = await store.get(key);
    prep.prefetched.whole.set(key, bytes ?? null);
    if (bytes) caches?.chunks.set(scope + key, bytes);
    return;
  }
  const bytes = await store.getRange(key, range);
  // A shorter answer means the object changed since planning; the engine's reads then fall
  // through to the store (counted as unplanned) and report the damage themselves.
  if (!bytes || bytes.length !== range.length) return;
  addSpan(prep.prefetched, key, range.offset, bytes);
  for (const p of job.pieces) {
    caches?.chunks.set(scope + rangeCacheKey(key, p.offset, p.length), bytes.subarray(p.offset - range.offset, p.offset - range.offset + p.length));
  }
}

async function readArray(store: PlannedStore, a: PreparedArray, concurrency: number, decodePool: DecodePool | false): Promise<ArrayResult> {
  const array = new ZarrArray(store, a.array.path, a.array.metadata, { concurrency, decodePool });
  const dt = array.dataType;
  const n = product(a.resultShape);
  const out = dt.allocate(n);
  const stride = cStrides(a.resultShape);
  const single = a.boxes.length === 1;
  for (const box of a.boxes) {
    const selection = box.runs.map((r) => slice(r.start, r.start + (r.count - 1) * r.step + 1, r.step));
    if (single) {
      await array.get(selection, { out });
      continue;
    }
    const counts = box.runs.map((r) => r.count);
    const part = dt.allocate(product(counts));
    await array.get(selection, { out: part });
    const offset = box.outStart.reduce((acc, o, d) => acc + o * stride[d]!, 0);
    copyStrided({ data: part, offset: 0, stride: cStrides(counts) }, { data: out, offset, stride }, counts, dt.lanes);
  }
  return { path: array.path, dtype: array.dtype, dims: a.dims, shape: [...a.resultShape], data: out as ArrayData };
}
