// The planner: runs the passes in order over a query tree and returns the printable plan plus
// what execution needs (opened arrays, boxes, requests, bytes already in hand).
//   1 resolve-arrays  from/select -> arrays and the dimension table
//   2 resolve-dims    where/whereIndex/nearest/limit/stride -> index sets (coordinate lookups)
//   3 chunk-pass      index sets -> boxes -> chunks (whole, or inner chunks of shards)
//   . manifests       (sessions only) the manifests whose extents meet those chunks
//   . decoded-pass    (with caches) chunks already decoded in the cache are taken, not fetched
//   4 fetch-pass      shard indexes -> byte ranges -> coalesced requests
import type { Sized } from '../../cache/read-caches.ts';
import type { ZarrArray } from '../../engine/array.ts';
import { DEFAULT_CONCURRENCY } from '../../engine/storage/limiter.ts';
import { product, type NdArray } from '../../format/zarr/ndarray.ts';
import { joinPath, normalizePath, parentPath } from '../../format/zarr/paths.ts';
import { sharedLoad } from '../../engine/abort.ts';
import { Meter } from '../metered-store.ts';
import { nodeText } from '../nodes/node-text.ts';
import type { QueryNode } from '../nodes/query-node.ts';
import type { ChunkBox, ManifestUse, ResolvedSource } from '../source.ts';
import { planChunks, type Box } from './chunk-pass.ts';
import type { CoalesceOptions } from './coalesce.ts';
import { checkCoordinateLength, coordinateBytes, loadCoordinate, type Coordinate } from './coordinate.ts';
import { cachesDecodedUnits, pinDecodedUnits, unitGrid, type UnitGrid } from './decoded-pass.ts';
import { planFetches, type FetchPassResult, type Prefetched, type RequestJob } from './fetch-pass.ts';
import { estimatePlan, resolveLimits, type PlanEstimate, type QueryLimits } from './plan-limits.ts';
import type { ArrayPlan, QueryPlan } from './plan-types.ts';
import { resolveArrays } from './resolve-arrays.ts';
import { NEEDS_LABELS, resolveDims } from './resolve-dims.ts';

export interface PlanOptions {
  /** Requests in flight at once (shard indexes while planning, data while executing). Default 8. */
  concurrency?: number | undefined;
  coalesce?: CoalesceOptions | undefined;
  /** Stops the query: requests in flight are cancelled, none starts after it fires, and the query rejects with ABORTED. */
  signal?: AbortSignal | undefined;
  /** What one query may touch, checked by arithmetic before the chunk pass (plan-limits.ts). */
  limits?: QueryLimits | undefined;
  /**
   * Called with the counts once they pass the limits, before the chunk pass enumerates anything;
   * planning waits for it (the query server reserves memory here, or refuses by throwing).
   */
  admit?: ((estimate: PlanEstimate) => Promise<void> | void) | undefined;
  /** 'cf': `from(path, dtype)` names the decoded type (docs/cf.md). */
  decode?: 'none' | 'cf' | undefined;
}

export interface PreparedArray {
  readonly array: ZarrArray;
  readonly dims: readonly string[];
  readonly boxes: readonly Box[];
  readonly resultShape: readonly number[];
  /** Set when the array is read unit by unit through the decoded-chunk cache. */
  readonly units: UnitGrid | undefined;
}

/** What a query took from the read caches instead of fetching (or decoding). */
export interface CacheHits {
  shardIndexes: number;
  /** Encoded chunks (or inner-chunk ranges) taken from the cache instead of fetched. */
  chunks: number;
  /** Chunks (or inner chunks) taken decoded from the cache: neither fetched nor decoded. */
  decodedChunks: number;
  coordinates: number;
  manifests: number;
}

export interface PreparedQuery {
  readonly plan: QueryPlan;
  readonly arrays: readonly PreparedArray[];
  readonly jobs: readonly RequestJob[];
  readonly prefetched: Prefetched;
  /** Decoded units taken from the cache while planning, by unscoped unit key. */
  readonly decoded: ReadonlyMap<string, NdArray>;
  readonly meter: Meter;
  readonly source: ResolvedSource;
  readonly cacheHits: CacheHits;
  readonly concurrency: number;
}

export async function planQuery(source: ResolvedSource, query: QueryNode, options: PlanOptions = {}): Promise<PreparedQuery> {
  const limits = resolveLimits(options.limits);
  const meter = new Meter(source.store, options.signal);
  // A store behind a round trip (HTTP) asks for more requests in flight (ZarrStore.readConcurrency).
  const concurrency = options.concurrency ?? source.store.readConcurrency ?? DEFAULT_CONCURRENCY;
  const caches = source.caches;
  const hits: CacheHits = { shardIndexes: 0, chunks: 0, decodedChunks: 0, coordinates: 0, manifests: 0 };
  const planManifests = manifestPlanning(source, meter, hits);
  const coordinateManifests = new Map<string, readonly ManifestUse[]>();
  const loadCoord = coordinateLoading(source, meter, hits, planManifests, coordinateManifests, query.from?.path ?? '/', limits.maxCoordinateLabels);
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
  const { arrays, dims } = await resolveArrays(meter.store('metadata'), query, concurrency, options.decode);
  const resolved = await resolveDims(dims, query.operations, async (dim) => checkCoordinateLength(await (early.get(dim.name) ?? loadCoord(dim.name)), dim.length));
  const dimPlans = resolved.map((d) => (d.coordinate ? { ...d, coordinate: { ...d.coordinate, manifests: coordinateManifests.get(d.coordinate.path) } } : d));
  const setOf = new Map(dimPlans.map((d) => [d.name, d]));
  // Decoding holds its output beside the stored result: counted only for arrays that decode.
  const decodedElementBytes = options.decode === 'cf' ? await (await import('./cf-estimate.ts')).decodedElementBytes(arrays.map((a) => a.array)) : [];
  const estimate = estimatePlan(arrays.map(({ array, dims: names }, i) => ({ array, sets: names.map((n) => setOf.get(n)!.set), decodedElementBytes: decodedElementBytes[i] ?? 0 })), limits);
  if (options.admit) {
    await options.admit(estimate);
    meter.checkAborted();
  }
  const prefetched: Prefetched = { whole: new Map(), indexes: new Map(), spans: new Map() };
  const decoded = new Map<string, NdArray>();
  const fetches: FetchPassResult = { shardIndexes: [], jobs: [], cachedPieces: 0, emptyPieces: 0 };
  const prepared: PreparedArray[] = [];
  const arrayPlans: ArrayPlan[] = [];
  for (const { array, dims: names } of arrays) {
    const sets = names.map((n) => setOf.get(n)!.set);
    const resultShape = names.map((n) => setOf.get(n)!.count);
    const { boxes, chunks, chunkBoxes } = planChunks(array, sets);
    const manifests = boxes.length > 0 ? await planManifests(array.path, chunkBoxes) : undefined;
    const eligible = cachesDecodedUnits(array, caches);
    const pinned = eligible ? pinDecodedUnits(array, chunks, caches, source.scope, decoded) : 0;
    hits.decodedChunks += pinned;
    const encodedHits = fetches.cachedPieces;
    const sharding = array.chain.sharding;
    await planFetches(
      { chunks, sharding, wholeSize: sharding ? undefined : array.chain.encodedSize() },
      { indexStore: meter.store('shardIndex'), signal: meter.signal, caches, scope: source.scope, concurrency, coalesce: options.coalesce ?? {}, prefetched },
      fetches,
    );
    // Decoded chunks are kept once hot: read again while decoded or encoded bytes are cached.
    // A cold array is read box by box, which decodes the same chunks at less cost.
    const units = eligible && (pinned > 0 || fetches.cachedPieces > encodedHits) ? unitGrid(array) : undefined;
    prepared.push({ array, dims: names, boxes, resultShape, units });
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
      decodedPieces: hits.decodedChunks,
      emptyPieces: fetches.emptyPieces,
    },
    planning: meter.snapshot(),
  };
  return { plan: deepFreeze(plan), arrays: prepared, jobs: fetches.jobs, prefetched, decoded, meter, source, cacheHits: hits, concurrency };
}

type ManifestPlanning = (path: string, boxes: readonly ChunkBox[]) => Promise<readonly ManifestUse[] | undefined>;

/** Loads a source's manifests for planning (sessions only), counting fetched ones in the meter. */
function manifestPlanning(source: ResolvedSource, meter: Meter, hits: CacheHits): ManifestPlanning {
  return async (path, boxes) => {
    if (!source.manifests) return undefined;
    meter.checkAborted();
    const uses = await source.manifests.planManifests(path, boxes, meter.request);
    for (const m of uses) {
      if (m.status === 'fetched') meter.record('manifest', m.bytes ?? 0);
      else if (m.status === 'cached') hits.manifests++;
    }
    return uses;
  };
}

/** Loads a dimension's coordinate array (in the from array's group) through the coordinate cache. */
function coordinateLoading(
  source: ResolvedSource, meter: Meter, hits: CacheHits, planManifests: ManifestPlanning,
  manifestsOf: Map<string, readonly ManifestUse[]>, fromPath: string, maxLabels: number,
): (dim: string) => Promise<Coordinate> {
  const coordinates = meter.store('coordinates');
  const caches = source.caches;
  return async (dim) => {
    const path = joinPath(parentPath(normalizePath(fromPath)), dim);
    const load = async () => {
      // A coordinate is read whole: every manifest of it, loaded together and counted here.
      const manifests = await planManifests(path, [WHOLE_1D]);
      if (manifests) manifestsOf.set(path, manifests);
      return loadCoordinate(coordinates, path, dim, maxLabels);
    };
    if (!caches) return load();
    const key = `${source.scope}${path}#coordinate`;
    if (caches.coordinates.get(key)) hits.coordinates++;
    // Shared with concurrent queries: another query's abort does not fail this one.
    const sized = await sharedLoad(() => caches.coordinates.load(key, async (): Promise<Sized<unknown>> => {
      const c = await load();
      return { value: c, bytes: coordinateBytes(c) };
    }), meter.signal);
    return sized.value as Coordinate; // only this function stores values under `#coordinate` keys
  };
}

/** Coordinates are one-dimensional: this box meets every chunk of one. */
const WHOLE_1D: ChunkBox = { from: [0], to: [Number.MAX_SAFE_INTEGER] };

/** Plans are shared values (returned by explain, reused by execute): nothing may change them. */
function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}
