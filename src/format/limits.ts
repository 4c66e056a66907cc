// Resource limits, decided before work starts: how much a decoder may produce, how large and deep
// a JSON document may be, how big an array's dimensions, chunks and paths may get. Each limit is
// checked once per object from sizes already known (metadata, headers), never per byte, and is
// the same on read and on write, so Floe never writes what it would refuse to read.
//
// The tunable ones (ResourceLimits) are process-wide: they guard the process's memory, and decode
// workers receive the values they need with each request. The structural maxima are constants.
// docs/limits.md lists every limit, its default and what to do when one is hit.
import { floeError, type FloeError, type LimitKind } from '../errors.ts';

const MiB = 2 ** 20;
const GiB = 2 ** 30;

/** The tunable limits (see {@link configureLimits}); every value is a positive integer. */
export interface ResourceLimits {
  /** UTF-8 bytes of one JSON document read or written (zarr.json, .zarray, .zattrs, query bodies). Default 64 MiB. */
  readonly jsonBytes: number;
  /**
   * Nesting of arrays and objects in one JSON document, the document itself being level 1.
   * Default 512, at most {@link MAX_JSON_DEPTH}.
   */
  readonly jsonDepth: number;
  /**
   * Decoded bytes of one variable-length chunk (string, binary), whose size the metadata cannot
   * state. Fixed-size chunks are held to their exact size instead. Default 256 MiB.
   */
  readonly variableChunkBytes: number;
  /** Decoded payload of one Icechunk manifest. Default 1 GiB. */
  readonly manifestBytes: number;
  /** Decoded payload of one Icechunk snapshot. Default 256 MiB. */
  readonly snapshotBytes: number;
  /** Decoded payload of one Icechunk transaction log. Default 1 GiB. */
  readonly transactionLogBytes: number;
  /** Decoded payload of the Icechunk repo info file. Default 256 MiB. */
  readonly repoInfoBytes: number;
  /**
   * Chunks one array get, set or resize may visit: each is a job (or a key) held in memory until the
   * call ends, so a selection over a huge grid is refused before it is listed. Default 2^22.
   */
  readonly chunksPerCall: number;
  /**
   * Bytes of shared-memory results (reads the decode pool fills) allocated before the process
   * collects garbage: V8 does not count shared memory toward its own collections, so without this
   * dropped results stay resident. Default 1 GiB; not a refusal.
   */
  readonly sharedResultSlackBytes: number;
}

/** The defaults of {@link ResourceLimits}. */
export const DEFAULT_LIMITS: ResourceLimits = Object.freeze({
  jsonBytes: 64 * MiB,
  jsonDepth: 512,
  variableChunkBytes: 256 * MiB,
  manifestBytes: GiB,
  snapshotBytes: 256 * MiB,
  transactionLogBytes: GiB,
  repoInfoBytes: 256 * MiB,
  chunksPerCall: 2 ** 22,
  sharedResultSlackBytes: GiB,
});

/**
 * The highest jsonDepth can be set: JSON is read and written by recursion, one or two stack
 * frames a level, and 1,000 levels stay far inside Node's default stack wherever the call starts.
 */
export const MAX_JSON_DEPTH = 1000;

/** Most dimensions an array may have (NumPy 1 allows 32; every index list is this long at most). */
export const MAX_RANK = 32;
/** Most elements an array may have: integer arithmetic on indices stays exact below 2^53. */
export const MAX_ELEMENTS = Number.MAX_SAFE_INTEGER;
/**
 * Most decoded bytes of one chunk (one inner chunk when sharded): 2 GiB - 1, what every zstd
 * backend (the WASM one has a 2 GiB heap) and a typed array can hold. Shards may be larger:
 * they are read inner chunk by inner chunk.
 */
export const MAX_CHUNK_BYTES = 2 ** 31 - 1;
/** Most inner chunks in one shard: its index (16 bytes each) is read whole, 256 MiB at most. */
export const MAX_INNER_CHUNKS = 2 ** 24;
/** Longest node name in UTF-8 bytes: what local filesystems allow for one path component. */
export const MAX_NODE_NAME_BYTES = 255;
/** Most names in a node path (a chunk key adds `c` and one name per dimension). */
export const MAX_PATH_DEPTH = 64;

let current: ResourceLimits = DEFAULT_LIMITS;

/** The limits in force. */
export function resourceLimits(): ResourceLimits {
  return current;
}

/**
 * Changes some limits for the whole process (decode workers included) and returns the limits now
 * in force. Values must be positive integers; `configureLimits(DEFAULT_LIMITS)` restores the defaults.
 * @example
 * ```ts
 * configureLimits({ manifestBytes: 4 * 2 ** 30 }); // a repository with very large manifests
 * ```
 */
export function configureLimits(changes: Partial<ResourceLimits>): ResourceLimits {
  const next: Record<string, number> = { ...current };
  for (const [name, value] of Object.entries(changes)) {
    if (!(name in DEFAULT_LIMITS)) {
      throw floeError('INVALID_ARGUMENT', `"${name}" is not a resource limit; the limits are ${Object.keys(DEFAULT_LIMITS).join(', ')}`);
    }
    if (value === undefined) continue;
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) {
      throw floeError('INVALID_ARGUMENT', `resource limit "${name}" must be a positive integer, got ${String(value)}`);
    }
    if (name === 'jsonDepth' && value > MAX_JSON_DEPTH) {
      throw floeError('INVALID_ARGUMENT', `resource limit "jsonDepth" is at most ${MAX_JSON_DEPTH} (JSON is read by recursion), got ${value}`);
    }
    next[name] = value;
  }
  current = Object.freeze(next as unknown as ResourceLimits);
  return current;
}

/**
 * Refuses an array shape past MAX_RANK dimensions or MAX_ELEMENTS elements (the metadata of
 * every Zarr version is checked with it, when read and when created).
 */
export function checkArrayShape(shape: readonly number[], where: string): void {
  if (shape.length > MAX_RANK) {
    throw limitExceeded('rank', MAX_RANK, `an array of ${shape.length} dimensions is over the maximum of ${MAX_RANK}`, { actual: shape.length, where });
  }
  let elements = 1;
  for (const n of shape) elements *= n;
  if (elements > MAX_ELEMENTS) {
    throw limitExceeded('elements', MAX_ELEMENTS, `an array of shape [${shape.join(', ')}] has ${elements} elements, past ${MAX_ELEMENTS} (2^53 - 1), where index arithmetic stops being exact`, { actual: elements, where });
  }
}

/** The one constructor of LIMIT_EXCEEDED errors; `message` says what was refused and what to do. */
export function limitExceeded(
  kind: LimitKind,
  limit: number,
  message: string,
  options: { actual?: number | undefined; codec?: string | undefined; where?: string | undefined } = {},
): FloeError<'LIMIT_EXCEEDED'> {
  const details = {
    kind,
    limit,
    ...(options.actual === undefined ? {} : { actual: options.actual }),
    ...(options.codec === undefined ? {} : { codec: options.codec }),
  };
  return floeError('LIMIT_EXCEEDED', message, { where: options.where, details });
}
