// The one error type Floe throws. Every layer imports this leaf module; it imports nothing.
// A `code` is stable API: callers branch on it, tests pin the list below. Each code has one
// details type (ErrorDetailsByCode), so the compiler checks every throw site and every reader.
//
// Adding a code: one entry in ErrorDetailsByCode (its details, documented), then the compiler
// points at ERROR_CODES, and test/unit/errors.test.ts at docs/errors.md, until both list it.

/**
 * What `details` holds for each {@link ErrorCode}. A field is optional where only some throw
 * sites know it; a code whose details have a required field cannot be thrown without them.
 * `where` (on every error) names the key, path or snapshot, so details do not repeat it.
 * docs/errors.md describes when each code is thrown.
 */
export interface ErrorDetailsByCode {
  /** A caller passed something malformed (options, shapes, values, query terms). */
  INVALID_ARGUMENT: {
    /** `'no-changes'`: a commit with nothing to commit (pass `allowEmpty: true`). */
    readonly reason?: 'no-changes';
    /** Query errors: the dimension the bad term or label is about. */
    readonly dim?: string;
    /** Query errors: the array (or coordinate array) involved. */
    readonly path?: string;
    /** Query errors: the offending label, as text. */
    readonly value?: string;
    /** Query type mismatches: the data type found. */
    readonly dtype?: string;
    /** Query type mismatches: the data type the query expected. */
    readonly expectedDtype?: string;
  };
  /** A zarr.json / meta / config document breaks its spec. */
  INVALID_METADATA: {
    /** The codec whose configuration is invalid. */
    readonly codec?: string;
  };
  /**
   * A repository configuration value the reference Icechunk cannot store or apply: refused
   * before anything is written (and a stored one Floe cannot read).
   */
  INVALID_CONFIG: {
    /** The field, as a path: `manifest.splitting.split_sizes[0][1][0].num_chunks`. */
    readonly field: string;
    /** The refused value, as text. */
    readonly value: string;
    /** What the field accepts, e.g. `an integer in 1..=4294967295 (u32, not 0)`. */
    readonly allowed: string;
  };
  /** A selection out of bounds or of the wrong shape. */
  INVALID_SELECTION: {
    /** Query errors: the dimension of the bad positional selection. */
    readonly dim?: string;
  };
  /** A store key or node path that could escape or alias. */
  INVALID_KEY: NoDetails;
  /** A node name the spec forbids, or a new branch or tag name Floe refuses. */
  INVALID_NAME: {
    /** New branch and tag names: the rule the name breaks (docs/errors.md lists them); node names: 'too-long'. */
    readonly rule?:
      | 'not-a-string' | 'empty' | 'too-long' | 'unpaired-surrogate' | 'control-or-space' | 'forbidden-character'
      | 'slash' | 'double-dot' | 'leading-dash' | 'leading-dot' | 'trailing-dot' | 'lock-suffix' | 'at-brace' | 'lone-at';
    /** New branch and tag names: which kind of ref was being created. */
    readonly refKind?: 'branch' | 'tag';
  };
  /** A node, ref, snapshot, object or label that does not exist. */
  NOT_FOUND: {
    /** Query errors: the dimension whose label or coordinate array is missing. */
    readonly dim?: string;
    /** Query errors: the coordinate array looked for. */
    readonly path?: string;
    /** Query errors: the label not found, as text. */
    readonly value?: string;
    /** `nearest` with a tolerance: the index of the nearest label, which was too far. */
    readonly nearestIndex?: number;
    /** Unknown branches and tags: the known names closest to the one given ("did you mean"). */
    readonly suggestions?: readonly string[];
  };
  /** Creating something that is already there. */
  ALREADY_EXISTS: NoDetails;
  /**
   * A file, database or directory that holds something other than a Floe repository: refused, and
   * left exactly as it was.
   */
  NOT_A_REPOSITORY: {
    /**
     * `'not-sqlite'`: a file that is not a SQLite database; `'foreign-database'`: a SQLite
     * database of another application; `'not-empty'`: a directory (or S3 prefix) holding other
     * files, where `floe init` would have written a repository beside them.
     */
    readonly reason: 'not-sqlite' | 'foreign-database' | 'not-empty';
    /** What is there instead, as text: `a Zarr store (zarr.json)`, `application_id 0x12345678`, `tables: users`. */
    readonly found?: string;
  };
  /** Expected an array, found a group (or the reverse). */
  NODE_TYPE_MISMATCH: NoDetails;
  /** A codec, data type or feature Floe does not implement. */
  UNSUPPORTED: {
    /**
     * `'virtual-chunk-store-unsupported'`: a virtual chunk container of a kind Floe cannot read;
     * `'http-listing-unavailable'`: an operation that lists objects, over an HTTP server that
     * offers no S3-style XML listing; `'browser-build'`: a feature the browser build (`floe/browser`)
     * leaves out (local files and directories, SQLite, native packages).
     */
    readonly reason?: 'virtual-chunk-store-unsupported' | 'http-listing-unavailable' | 'browser-build';
    /** Query errors: the dimension whose coordinate array cannot be used. */
    readonly dim?: string;
    /** Query errors: the coordinate array involved. */
    readonly path?: string;
    /** Virtual datasets: the scanned file (or references file) using the feature. */
    readonly file?: string;
  };
  /** Bytes that fail to decode: truncated, bad header, bad index. */
  CORRUPT_OBJECT: {
    /** The codec that could not decode the bytes. */
    readonly codec?: string;
    /** Virtual datasets: the scanned file (NetCDF-3) or references file (kerchunk) that is malformed. */
    readonly file?: string;
    /** Virtual datasets: the variable (or header entry) where it is malformed. */
    readonly variable?: string;
  };
  /** A checksum present in the data does not match. */
  CHECKSUM_MISMATCH: {
    /** The codec whose checksum failed (absent for a changed virtual chunk source). */
    readonly codec?: string;
    /** The stored checksum, when it is a 32-bit number (crc32c). */
    readonly stored?: number;
    /** The computed checksum, when it is a 32-bit number (crc32c). */
    readonly actual?: number;
    /** lzma: the xz block check type (1 CRC32, 4 CRC64, 10 SHA-256). */
    readonly checkType?: number;
  };
  /** A conditional write lost: the object changed or exists. */
  PRECONDITION_FAILED: NoDetails;
  /** A commit or maintenance run conflicts with changes made meanwhile; `kind` says which. */
  CONFLICT: ConflictDetails;
  /**
   * A commit whose final compare-and-swap of the repo info may or may not have happened (its
   * answer was lost after retries): look it up with `repo.lookupCommit(commitKey, { branch })`,
   * or commit again with the same `commitKey` (docs/transactions.md).
   */
  COMMIT_OUTCOME_UNKNOWN: {
    /** The snapshot id the commit has if it landed. */
    readonly snapshotId: string;
    /** The commit's key, recorded in the snapshot's metadata (`floe_commit_key`); null for a flush. */
    readonly commitKey: string | null;
    /** The branch the commit was for; null for a flush. */
    readonly branch: string | null;
  };
  /** A write through a read-only store, session or repository. */
  READ_ONLY: NoDetails;
  /**
   * A write through an array handle whose layout changed since it was opened (another handle on
   * the same store resized or replaced the array): reopen the array and write again.
   */
  STALE_HANDLE: {
    /** The shape this handle was opened with. */
    readonly handleShape: readonly number[];
    /** The array's shape now, set by the other handle. */
    readonly storedShape: readonly number[];
  };
  /** A virtual chunk container or credential the repository does not allow, or an HTTP server refusing access. */
  UNAUTHORIZED: {
    /** Why the read was refused. */
    readonly reason:
      | 'virtual-chunk-no-container' | 'virtual-chunk-not-authorized' | 'virtual-chunk-redirect'
      | 'virtual-chunk-outside-container' | 'virtual-chunk-unsafe-url'
      | 'http-unauthorized' | 'http-forbidden';
    /** HTTP storage: the answer's status (401 or 403). */
    readonly status?: number;
  };
  /** The backend failed (I/O, network) after retries. */
  STORAGE_ERROR: {
    /** True when retrying may succeed (network reset, throttling, 5xx on an idempotent call). */
    readonly transient?: boolean;
    /** HTTP storage: the answer's status, when there was one. */
    readonly status?: number;
    /** HTTP storage: how long the server asked to wait before retrying (its Retry-After), in ms. */
    readonly retryAfterMs?: number;
    /**
     * HTTP storage: why an answer was refused. `'http-range-ignored'`: the server sent the whole
     * object for a ranged request (with `rangeIgnored: 'refuse'`); `'http-range-mismatch'`: its
     * partial answer is not the range asked for; `'http-encoded-range'`: it compressed a partial
     * answer (Content-Encoding), whose bytes then are not the object's.
     */
    readonly reason?: 'http-range-ignored' | 'http-range-mismatch' | 'http-encoded-range';
  };
  /** An operation ran past its deadline. */
  TIMEOUT: NoDetails;
  /** Cancelled by the caller's `AbortSignal` (or its `AbortSignal.timeout` deadline). */
  ABORTED: {
    /**
     * True when the signal's reason is a timeout: a `TimeoutError` (what `AbortSignal.timeout`
     * aborts with) or a `TIMEOUT` FloeError; false for a plain `abort()`.
     */
    readonly timedOut: boolean;
    /** The signal's reason as text (an Error's message), when it has one. */
    readonly reason?: string;
  };
  /** An optional package the operation needs is not installed or does not load. */
  MISSING_DEPENDENCY: {
    /** The npm package to install. */
    readonly package: string;
  };
  /**
   * Input, output or a request past one of Floe's resource limits (decoded sizes, JSON, shapes,
   * paths; a query's chunks, result bytes, labels or memory), refused before the work starts.
   */
  LIMIT_EXCEEDED: LimitDetails;
  /** A name or snapshot id prefix that matches more than one thing; `candidates` lists them. */
  AMBIGUOUS: {
    /** Everything the name matched: full snapshot ids for an id prefix. */
    readonly candidates: readonly string[];
  };
  /**
   * A task of a distributed write (`floe/distributed`) failed for good: its handler threw in every
   * attempt the job engine made, or threw an unrecoverable error. The branch is unchanged.
   */
  TASK_FAILED: {
    /** The distributed write's id. */
    readonly writeId: string;
    /** The task's position in the write's task list. */
    readonly task: number;
    /** The BullMQ job id of the task. */
    readonly jobId: string;
    /** The job's failure reason as the job engine recorded it. */
    readonly reason: string;
  };
}

/**
 * Which limit a `LIMIT_EXCEEDED` hit (docs/limits.md lists the format limits with their defaults):
 * - `'decoded-bytes'`: a decoder's output would pass what the data can decode to (a chunk's size
 *   from the array metadata, or a configured maximum for a metadata file).
 * - `'encoded-bytes'`: a stored chunk larger than any encoding of it can be (or an object larger
 *   than a storage read's `maxBytes`).
 * - `'json-bytes'`, `'json-depth'`: a JSON document's size in UTF-8 bytes, or its nesting.
 * - `'rank'`, `'elements'`, `'chunk-bytes'`, `'inner-chunks'`: an array's dimensions, its element
 *   count, one decoded chunk's bytes, a shard's inner chunk count.
 * - `'path-depth'`: names in a node path.
 * - `'allocation'`: a result the process could not allocate.
 * - `'chunks'`, `'result-bytes'`, `'coordinate-labels'`: a query's chunks or boxes (`maxChunks`),
 *   result bytes (`maxResultBytes`), coordinate labels (`maxCoordinateLabels`).
 * - `'memory-budget'`: a query server's `memoryBudgetBytes`, which one request's estimate passes
 *   on its own.
 */
export type LimitKind =
  | 'decoded-bytes' | 'encoded-bytes' | 'json-bytes' | 'json-depth' | 'rank' | 'elements' | 'chunk-bytes' | 'inner-chunks' | 'path-depth' | 'allocation'
  | 'chunks' | 'result-bytes' | 'coordinate-labels' | 'memory-budget' | 'manifest-splits';

/** The details of a `LIMIT_EXCEEDED`. */
export interface LimitDetails {
  /** Which limit. */
  readonly kind: LimitKind;
  /** The limit's value (bytes, levels, dimensions, elements, names, chunks, labels). */
  readonly limit: number;
  /**
   * What the input declared or reached, or the request needed, when known (a decoder stopped
   * early may not know the total; an upper bound where counted from metadata, rounded past 2^53).
   */
  readonly actual?: number;
  /** `'decoded-bytes'`: the codec or file compression that refused. */
  readonly codec?: string;
}

/**
 * The details of a code that carries none: `{}`, and no field may be set. (The never-set field
 * keeps the compiler's excess-property check, which the empty type `{}` would switch off; an
 * index signature instead would stop ts-pattern from matching nested details of other codes.)
 */
export interface NoDetails {
  /** Never set. */
  readonly none?: never;
}

/**
 * The details of a `CONFLICT`, discriminated by `kind`:
 * - `'branch-moved'`: a commit (or squash) found its branch at another snapshot than the one it
 *   started from; `currentSnapshotId` is null when the branch was deleted meanwhile.
 * - `'not-an-ancestor'`: a rebase cannot replay onto the tip, the session's snapshot is not in
 *   its history (the branch was reset).
 * - `'conflicts'`: a rebase or fork merge left clashes; {@link ConflictEntry} lists them (a
 *   `ConflictError` types them fully).
 * - `'history-rewritten'`: a squash found its range changed by an expiry or another squash.
 * - `'dangling-ref'`: an expiry would have left `ref` pointing at a released snapshot.
 * - `'repo-update-retries-exhausted'`: the repo info file kept changing under a compare-and-swap.
 * - `'gc-mark-outdated'`, `'gc-mark-unstable'`: garbage collection's mark lost a race once, or
 *   in every attempt.
 * - `'overlapping-forks'`: two forks merged as disjoint (the tasks of a distributed write) both
 *   wrote one chunk (`chunk`: its coordinates) or one zarr.json (`chunk` null) of `path`;
 *   `owners` names them.
 */
export type ConflictDetails =
  | { readonly kind: 'branch-moved'; readonly branch: string; readonly expectedSnapshotId: string; readonly currentSnapshotId: string | null }
  | { readonly kind: 'not-an-ancestor'; readonly branch: string; readonly snapshotId: string; readonly tip: string }
  | { readonly kind: 'conflicts'; readonly conflicts: readonly ConflictEntry[] }
  | { readonly kind: 'history-rewritten'; readonly branch: string }
  | { readonly kind: 'dangling-ref'; readonly ref: string }
  | { readonly kind: 'repo-update-retries-exhausted' }
  | { readonly kind: 'gc-mark-outdated' }
  | { readonly kind: 'gc-mark-unstable' }
  | { readonly kind: 'overlapping-forks'; readonly path: string; readonly owners: readonly [string, string]; readonly chunk: readonly number[] | null };

/**
 * One clash of a `'conflicts'` CONFLICT as this leaf module knows it: the conflict type (the
 * reference Icechunk's `ConflictType` name) and the node path. The full values are `Conflict`s.
 */
export interface ConflictEntry {
  /** The reference Icechunk's conflict type name, e.g. `'ChunkDoubleUpdate'`. */
  readonly type: string;
  /** The node path the conflict is about. */
  readonly path: string;
}

/** Every {@link ErrorCode}, in a stable order. Codes are stable API: branch on them, not on messages. */
export const ERROR_CODES = [
  'INVALID_ARGUMENT',
  'INVALID_METADATA',
  'INVALID_CONFIG',
  'INVALID_SELECTION',
  'INVALID_KEY',
  'INVALID_NAME',
  'NOT_FOUND',
  'ALREADY_EXISTS',
  'NODE_TYPE_MISMATCH',
  'UNSUPPORTED',
  'CORRUPT_OBJECT',
  'CHECKSUM_MISMATCH',
  'PRECONDITION_FAILED',
  'CONFLICT',
  'READ_ONLY',
  'UNAUTHORIZED',
  'STORAGE_ERROR',
  'TIMEOUT',
  'ABORTED',
  'MISSING_DEPENDENCY',
  'LIMIT_EXCEEDED',
  'AMBIGUOUS',
  'NOT_A_REPOSITORY',
  'STALE_HANDLE',
  'COMMIT_OUTCOME_UNKNOWN',
  'TASK_FAILED',
] as const satisfies readonly (keyof ErrorDetailsByCode)[];

/** The machine-readable kind of a {@link FloeError}; {@link ErrorDetailsByCode} gives its details. */
export type ErrorCode = (typeof ERROR_CODES)[number];

// Fails to compile when a code has details but is missing from ERROR_CODES (the `satisfies`
// above catches the reverse).
type Assert<T extends true> = T;
type _EveryCodeListed = Assert<keyof ErrorDetailsByCode extends ErrorCode ? true : false>;

/** The details of the given code (of any code when `C` is a union). */
export type ErrorDetails<C extends ErrorCode = ErrorCode> = ErrorDetailsByCode[C];

/** Options of a {@link FloeError}: its cause, where it happened, and the code's details. */
export interface FloeErrorOptions<C extends ErrorCode = ErrorCode> {
  /** The error this one wraps. */
  cause?: unknown;
  /**
   * Where it happened: a store key, node path, snapshot id, file. `undefined` is allowed, not
   * just absence, because throw sites forward an optional `where` they were given unchanged.
   */
  where?: string | undefined;
  /** The code's typed facts for programmatic handling ({@link ErrorDetailsByCode}). */
  details?: ErrorDetails<C>;
}

/**
 * The options argument of `floeError` and `new FloeError` for a code: optional when the
 * code's details have no required field, otherwise required and with `details`.
 * (`{} extends` asks exactly that: whether an empty object is valid details.)
 */
export type FloeErrorOptionsArg<C extends ErrorCode> =
  {} extends ErrorDetails<C> ? [options?: FloeErrorOptions<C>] : [options: FloeErrorOptions<C> & { details: ErrorDetails<C> }];

/** A {@link FloeError} of exactly one code `C`: its `code` and typed `details`. */
export interface FloeErrorOf<C extends ErrorCode> extends Error {
  /** The stable, machine-readable kind. */
  readonly code: C;
  /** Where it happened (a store key, node path, snapshot id, file); also appended to the message. */
  readonly where: string | undefined;
  /** The code's typed facts ({@link ErrorDetailsByCode}); `{}` when the throw site knows none. */
  readonly details: ErrorDetails<C>;
}

/**
 * The one error type Floe throws: a union discriminated by `code`, whose `details` type
 * follows the code ({@link ErrorDetailsByCode}). `FloeError<'CONFLICT'>` is the variant of one
 * code. Narrow with {@link isFloeError} (or `instanceof FloeError`), then branch on `code`, by
 * hand or with ts-pattern's `match`; `where` names the key, path or snapshot involved.
 * @example
 * ```ts
 * try { await session.commit('m'); }
 * catch (err) {
 *   if (isFloeError(err, 'CONFLICT') && err.details.kind === 'branch-moved') { ... }
 *   else throw err;
 * }
 * ```
 */
export type FloeError<C extends ErrorCode = ErrorCode> = C extends ErrorCode ? FloeErrorOf<C> : never;

/** The constructor of {@link FloeError}: `details` must match the code. */
export interface FloeErrorConstructor {
  /** A FloeError of `code`; `where` is appended to the message. */
  new <C extends ErrorCode>(code: C, message: string, ...options: FloeErrorOptionsArg<C>): FloeError<C>;
  /** Makes `err instanceof FloeError` narrow to the union of every code's variant. */
  readonly prototype: FloeError;
}

/**
 * The class behind every {@link FloeError}: `new FloeError(code, message, { where, details, cause })`
 * (throw sites use `floeError`). `instanceof FloeError` narrows to the union.
 * @example
 * ```ts
 * try { await openArray(store, '/a'); }
 * catch (err) { if (isFloeError(err, 'NOT_FOUND')) { ... } else throw err; }
 * ```
 */
// A constructor cannot take type parameters, so the class types `code` loosely and the cast adds
// the correlation of code and details (FloeErrorConstructor); the class body is the only place
// that relies on it.
export const FloeError = class FloeError extends Error {
  readonly code: ErrorCode;
  readonly where: string | undefined;
  readonly details: ErrorDetails;

  constructor(code: ErrorCode, message: string, options: FloeErrorOptions = {}) {
    super(options.where ? `${message} (at ${options.where})` : message, { cause: options.cause });
    this.name = 'FloeError';
    this.code = code;
    this.where = options.where;
    this.details = options.details ?? {};
  }
} as unknown as FloeErrorConstructor;

/**
 * Narrows an unknown error to a {@link FloeError}, optionally of the given codes: after
 * `isFloeError(err, 'CONFLICT')`, `err.details` is the CONFLICT details.
 */
export function isFloeError<C extends ErrorCode = ErrorCode>(err: unknown, ...codes: C[]): err is FloeError<C> {
  return err instanceof FloeError && (codes.length === 0 || (codes as readonly ErrorCode[]).includes(err.code));
}

/**
 * Shorthand used at throw sites: `throw floeError('NOT_FOUND', '...', { where })`. The code comes
 * first and `details` must match it; codes with required details cannot omit them.
 */
export function floeError<C extends ErrorCode>(code: C, message: string, ...options: FloeErrorOptionsArg<C>): FloeError<C> {
  return new FloeError(code, message, ...options);
}
