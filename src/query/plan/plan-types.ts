// The plan: plain data describing what a query will read, printable by explain() and compared
// against execute()'s report. Everything here is serialisable (the HTTP /explain returns it).
import type { FetchCounts } from '../metered-store.ts';
import type { ManifestUse } from '../source.ts';
import type { DimSet } from './dim-set.ts';
import type { CoordinateOrder } from './coordinate.ts';

export interface LookupNote {
  /** The builder call, e.g. `.where("lat", 'between', [10, 20])`. */
  readonly operation: string;
  readonly method: 'binary-search' | 'scan' | 'positional' | 'thinning';
  readonly comparisons: number;
  /** Indices selected after this operation. */
  readonly selected: number;
}

export interface CoordinatePlan {
  readonly path: string;
  readonly dtype: string;
  readonly order: CoordinateOrder;
  readonly units: string | undefined;
  /** Sessions: the manifests read to load it (undefined when it came from the cache). */
  readonly manifests?: readonly ManifestUse[] | undefined;
}

export interface DimPlan {
  readonly name: string;
  readonly length: number;
  readonly set: DimSet;
  readonly count: number;
  readonly coordinate: CoordinatePlan | undefined;
  readonly lookups: readonly LookupNote[];
}

export interface ShardLayout {
  readonly innerChunkShape: readonly number[];
  readonly indexBytes: number;
  readonly indexLocation: 'start' | 'end';
}

export interface ArrayPlan {
  readonly path: string;
  readonly dtype: string;
  readonly shape: readonly number[];
  readonly chunkShape: readonly number[];
  readonly dims: readonly string[];
  readonly resultShape: readonly number[];
  /** Result size in memory (0 for variable-length types, whose size is unknown before reading). */
  readonly resultBytes: number;
  /** Boxes (one per combination of index runs) the selection splits into. */
  readonly boxes: number;
  readonly chunks: number;
  readonly sharding: ShardLayout | undefined;
  readonly manifests: readonly ManifestUse[] | undefined;
}

/** One request the executor will make: a whole object, or one coalesced byte range of it. */
export interface PlannedRequest {
  readonly key: string;
  readonly range: { readonly offset: number; readonly length: number } | undefined;
  /** Chunks (whole objects) or inner chunks (ranges) it carries. */
  readonly pieces: number;
  /** Bytes it returns; undefined for a whole object of unknown size. */
  readonly bytes: number | undefined;
  readonly wantedBytes: number | undefined;
}

export interface ShardIndexUse {
  readonly key: string;
  readonly status: 'fetched' | 'cached' | 'missing';
  readonly bytes: number;
}

export interface PlanExpectation {
  /** Requests execute() will issue for data. */
  readonly requests: number;
  /** Their bytes, counting whole objects of unknown size as 0 (see unknownSizeObjects). */
  readonly bytes: number;
  readonly unknownSizeObjects: number;
  /** Pieces served from the encoded-chunk cache instead of fetched. */
  readonly cachedPieces: number;
  /** Chunks (inner chunks of shards) taken decoded from the cache: neither fetched nor decoded. */
  readonly decodedPieces: number;
  /** Inner chunks absent from their shard index: filled with the fill value, not fetched. */
  readonly emptyPieces: number;
}

/**
 * A planned query, made before any chunk data is read: the selection of each dimension, each array's
 * chunks, and the requests `execute()` will issue with their expected bytes. See {@link formatPlan}.
 */
export interface QueryPlan {
  /** The query as builder calls. */
  readonly query: string;
  readonly dims: readonly DimPlan[];
  readonly arrays: readonly ArrayPlan[];
  readonly shardIndexes: readonly ShardIndexUse[];
  readonly requests: readonly PlannedRequest[];
  readonly expected: PlanExpectation;
  /** What planning itself fetched: metadata, manifests (sessions), coordinates, shard indexes. */
  readonly planning: FetchCounts;
}
