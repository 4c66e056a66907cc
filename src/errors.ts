// The one error type Floe throws. Every layer imports this leaf module; it imports nothing.
// A `code` is stable API: callers branch on it, tests pin the list below.

/** Every {@link ErrorCode}, in a stable order. Codes are stable API: branch on them, not on messages. */
export const ERROR_CODES = [
  'INVALID_ARGUMENT', // a caller passed something malformed (options, shapes, values)
  'INVALID_METADATA', // a zarr.json / meta / config document breaks its spec
  'INVALID_SELECTION', // a selection out of bounds or of the wrong shape
  'INVALID_KEY', // a store key or node path that could escape or alias
  'INVALID_NAME', // a node name the spec forbids
  'NOT_FOUND', // a node, ref, snapshot or object that does not exist
  'ALREADY_EXISTS', // creating something that is already there
  'NODE_TYPE_MISMATCH', // expected an array, found a group (or the reverse)
  'UNSUPPORTED', // a codec, data type or feature Floe does not implement
  'CORRUPT_OBJECT', // bytes that fail to decode: truncated, bad header, bad index
  'CHECKSUM_MISMATCH', // a checksum present in the data does not match
  'PRECONDITION_FAILED', // a conditional write lost: the object changed or exists
  'CONFLICT', // a commit conflicts with changes made since the session began
  'READ_ONLY', // a write through a read-only store, session or repository
  'UNAUTHORIZED', // a virtual chunk container or credential the repository does not allow
  'STORAGE_ERROR', // the backend failed (I/O, network) after retries
  'TIMEOUT', // an operation ran past its deadline
  'ABORTED', // cancelled by the caller
  'MISSING_DEPENDENCY', // an optional package the operation needs is not installed or does not load
] as const;

/** The machine-readable kind of a {@link FloeError}. */
export type ErrorCode = (typeof ERROR_CODES)[number];

/** Options of a {@link FloeError}: its cause, where it happened, and typed details. */
export interface FloeErrorOptions {
  cause?: unknown;
  /** Where it happened: a store key, node path, snapshot id, file. */
  where?: string;
  /** Extra typed facts for programmatic handling. */
  details?: Readonly<Record<string, unknown>>;
}

/**
 * The one error type Floe throws. Narrow with {@link isFloeError}; `where` names the key, path or
 * snapshot involved (and is appended to the message), `details` carries typed facts.
 * @example
 * ```ts
 * try { await openArray(store, '/a'); }
 * catch (err) { if (isFloeError(err, 'NOT_FOUND')) { ... } else throw err; }
 * ```
 */
export class FloeError extends Error {
  readonly code: ErrorCode;
  readonly where: string | undefined;
  readonly details: Readonly<Record<string, unknown>>;

  constructor(code: ErrorCode, message: string, options: FloeErrorOptions = {}) {
    super(options.where ? `${message} (at ${options.where})` : message, { cause: options.cause });
    this.name = 'FloeError';
    this.code = code;
    this.where = options.where;
    this.details = options.details ?? {};
  }
}

/** Narrow an unknown error to a FloeError, optionally of the given codes. */
export function isFloeError(err: unknown, ...codes: ErrorCode[]): err is FloeError {
  return err instanceof FloeError && (codes.length === 0 || codes.includes(err.code));
}

/** Shorthand used at throw sites: `throw floeError('NOT_FOUND', '...', {where})`. */
export function floeError(code: ErrorCode, message: string, options?: FloeErrorOptions): FloeError {
  return new FloeError(code, message, options);
}
