// The planner: runs the passes in order over a query tree and returns the printable plan plus
// what execution needs (opened arrays, boxes, requests, bytes already in hand).
//   1 resolve-arrays  from/select -> arrays and the dimension table
//   2 resolve-dims    where/whereIndex/nearest/limit/stride -> index sets (coordinate lookups)
//   3 chunk-pass      index sets -> boxes -> chunks (whole, or inner chunks of shards)
//   . manifests       (sessions only) the manifests whose extents meet those chunks
//   4 fetch-pass      shard indexes -> byte ranges -> coalesced requests
import type { ReadCaches, Sized } from '../../cache/read-caches.ts';
import type { ZarrArray } from '../../engine/array.ts';
import { product } from '../../format/zarr/ndarray.ts';
import { joinPath, normalizePath, parentPath } from '../../format/zarr/paths.ts';
import { Meter } from '../metered-store.ts';
import { nodeText } from '../nodes/node-text.ts';
import type { QueryNode } from '../nodes/query-node.ts';
import type { ResolvedSource } from '../source.ts';
import { planChunks, type Box } from './chunk-pass.ts';
import type { CoalesceOptions } from './coalesce.ts';
import { checkCoordinateLength, coordinateBytes, loadCoordinate, type Coordinate } from './coordinate.ts';
import { planFetches, type FetchPassResult, type Prefetched, type RequestJob } from './fetch-pass.ts';
import type { ArrayPlan, QueryPlan } from './plan-types.ts';
import { resolveArrays } from './resolve-arrays.ts';
import { NEEDS_LABELS, resolveDims } from './resolve-dims.ts';

export interface PlanOptions {
  /** Requests in flight at once (shard indexes while planning, data while executing). Default 8. */
  concurrency?: number;
  coalesce?: CoalesceOptions;
  caches?: ReadCaches;
}

export interface PreparedArray {
  readonly array: ZarrArray;
  readonly dims: readonly string[];
  readonly boxes: readonly Box[];
  readonly resultShape: readonly number[];
}

export interface CacheHits {
  shardIndexes: number;
  chunks: number;
  coordinates: number;
}

export interface PreparedQuery {
  readonly plan: QueryPlan;
  readonly arrays: readonly PreparedArray[];
  readonly jobs: readonly RequestJob[];
  readonly prefetched: Prefetched;
  readonly meter: Meter;
  readonly source: ResolvedSource;
  readonly cacheHits: CacheHits;
  readonly concurrency: number;
}

export async function planQuery(source: ResolvedSource, query: QueryNode, options: PlanOptions = {}): Promise<PreparedQuery> {
  const meter = new Meter(source.store);
  const concurrency = options.concurrency ?? 8;
  const caches = source.caches;
  const hits: CacheHits = { shardIndexes: 0, chunks: 0, coordinates: 0 };
  const coordinates = meter.store('coordinates');
  const loadCoord = async (dim: string): Promise<Coordinate> => {
    const path = joinPath(parentPath(normalizePath(query.from!.path)), dim);
    const load = () => loadCoordinate(coordinates, path, dim);
    if (!caches) return load();
    const key = `${source.scope}${path}#coordinate`;
    if (caches.decoded.get(key)) hits.coordinates++;
    const sized = await caches.decoded.load(key, async (): Promise<Sized<unknown>> => {
      const c = await load();
      return { value: c, bytes: coordinateBytes(c) };
    });
    return sized.value as Coordinate; // only this function stores values under `#coordinate` keys
  };
  // Coordinates of labelled dimensions load alongside the array metadata (their paths follow from
  // the query alone), saving round trips; a failed early load surfaces only if the dimension exists.
  const early = new Map<string, Promise<Coordinate>>();
  if (query.from) {
    for (const op of query.operations) {
      if (!NEEDS_LABELS[op.kind] || op.dim.startsWith('#') || early.has(op.dim)) continue;
      const p = loadCoord(op.dim);
      p.catch(() => undefined);
      early.set(op.dim, p);
    }
  }
  const { arrays, dims } = await resolveArrays(meter.store('metadata'), query);
  const dimPlans = await resolveDims(dims, query.operations, async (dim) => checkCoordinateLength(await (early.get(dim.name) ?? loadCoord(dim.name)), dim.length));
  const setOf = new Map(dimPlans.map((d) => [d.name, d]));
  const prefetched: Prefetched = { whole: new Map(), indexes: new Map(), spans: new Map() };
  const fetches: FetchPassResult = { shardIndexes: [], jobs: [], cachedPieces: 0, emptyPieces: 0 };
  const prepared: PreparedArray[] = [];
  const arrayPlans: ArrayPlan[] = [];
  for (const { array, dims: names } of arrays) {
    const sets = names.map((n) => setOf.get(n)!.set);
    const resultShape = names.map((n) => setOf.get(n)!.count);
    const { boxes, chunks, chunkBoxes } = planChunks(array, sets);
    const manifests = source.manifests && boxes.length > 0 ? await source.manifests.planManifests(array.path, chunkBoxes) : undefined;
    const sharding = array.chain.sharding;
    await planFetches(
      { chunks, sharding, wholeSize: sharding ? undefined : array.chain.encodedSize() },
      { indexStore: meter.store('shardIndex'), caches, scope: source.scope, concurrency, coalesce: options.coalesce ?? {}, prefetched },
      fetches,
    );
    prepared.push({ array, dims: names, boxes, resultShape });
    const dt = array.dataType;
    arrayPlans.push({
      path: array.path, dtype: array.dtype, shape: array.shape, chunkShape: array.chunkShape, dims: names, resultShape,
      resultBytes: product(resultShape) * dt.lanes * dt.laneBytes,
      boxes: boxes.length, chunks: chunks.size,
      sharding: sharding && { innerChunkShape: sharding.innerChunkShape, indexBytes: sharding.indexByteLength, indexLocation: sharding.indexLocation },
      manifests,
    });
  }
  hits.shardIndexes = fetches.shardIndexes.filter((s) => s.status === 'cached').length;
  hits.chunks = fetches.cachedPieces;
  const requests = fetches.jobs.map((j) => j.request);
  const plan: QueryPlan = {
    query: nodeText(query),
    dims: dimPlans,
    arrays: arrayPlans,
    shardIndexes: fetches.shardIndexes.sort((a, b) => a.key.localeCompare(b.key)),
    requests,
    expected: {
      requests: requests.length,
      bytes: requests.reduce((n, r) => n + (r.bytes ?? 0), 0),
      unknownSizeObjects: requests.filter((r) => r.bytes === undefined).length,
      cachedPieces: fetches.cachedPieces,
      emptyPieces: fetches.emptyPieces,
    },
    planning: meter.snapshot(),
  };
  return { plan: deepFreeze(plan), arrays: prepared, jobs: fetches.jobs, prefetched, meter, source, cacheHits: hits, concurrency };
}

/** Plans are shared values (returned by explain, reused by execute): nothing may change them. */
function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}
