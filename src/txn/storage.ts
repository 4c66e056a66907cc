// `Storage`: where a repository lives. The constructor names mirror the reference JS API
// (`Storage.newInMemory()`, `Storage.newLocalFilesystem(path)`, `Storage.newS3(...)`), plus Floe's
// own `Storage.newSqlite(file)` and `Storage.fromObjectStorage(backend)` for any ObjectStorage,
// `Storage.newHttp(url)` for a published repository (read-only), and `Storage.at(location)`.
import { shownValue } from '../format/arguments.ts';
import { isObjectStorage } from '../engine/storage/types.ts';
import { floeError } from '../errors.ts';
import { FsStorage } from '../engine/storage/fs.ts';
import { httpStorageStack, type HttpStackOptions } from '../engine/storage/http-stack.ts';
import { parseLocation } from '../engine/storage/location.ts';
import { MemoryStorage } from '../engine/storage/memory.ts';
import { withRetries, type RetryOptions } from '../engine/storage/retries.ts';
import { S3Storage, type S3StorageOptions } from '../engine/storage/s3.ts';
import { SqliteStorage } from '../engine/storage/sqlite.ts';
import { withTimeouts } from '../engine/storage/timeouts.ts';
import type { ObjectStorage } from '../engine/storage/types.ts';

/** The reference's S3 credential shapes. 'FromEnv' (the default) is the AWS SDK's default chain. */
export type S3Credentials =
  | { type: 'FromEnv' }
  | { type: 'Anonymous' }
  | { type: 'Static'; field0: { accessKeyId: string; secretAccessKey: string; sessionToken?: string } };

/**
 * Options of `Storage.newS3`: the reference's, plus what S3-compatible servers and flaky networks
 * need. Every option is honoured; an unknown one, or one of the wrong type, is INVALID_ARGUMENT.
 */
export interface S3StorageConstructorOptions {
  /** Default 'us-east-1'. */
  region?: string;
  /** An S3-compatible server, `http(s)://host[:port]`. Default: AWS. */
  endpointUrl?: string;
  /**
   * Whether an `http://` endpointUrl is allowed. Default true (the caller spelled the URL out);
   * false refuses one with INVALID_ARGUMENT. (The reference defaults to false.)
   */
  allowHttp?: boolean;
  /** Unsigned requests, as `{ type: 'Anonymous' }` credentials. Default false. */
  anonymous?: boolean;
  /** Path-style URLs (`endpoint/bucket/key`), needed by Ceph, MinIO and most self-hosted servers. Default false. */
  forcePathStyle?: boolean;
  /** Send If-Match ETags without quotes: Ceph RGW needs true. Default false (AWS). */
  unquotedIfMatch?: boolean;
  /** How a conditional copy guards its source (see S3StorageOptions.copyConditions). Default 'client'. */
  copyConditions?: 'server' | 'client';
  /** Each HTTP request is aborted after this long (TIMEOUT, retried). Default 30 000 ms. */
  requestTimeoutMs?: number;
  /**
   * Deadline of one storage call including its retries. Default none: requests are already aborted
   * after `requestTimeoutMs` and retries are bounded; a call past this deadline is abandoned, not
   * cancelled, so a conditional write reported as TIMEOUT may still land.
   */
  operationTimeoutMs?: number;
  /**
   * Retries of transient failures (5xx, throttling, timeouts, no answer) with exponential backoff
   * and full jitter. Default `{}`: 4 attempts, 50 ms doubling to at most 2 s. `false`: one attempt.
   * A failed precondition is never retried.
   */
  retries?: RetryOptions | false;
}

/** Options of `Storage.newHttp` (the HTTP backend's, its retries, request limit and range batching). */
export type HttpStorageConstructorOptions = HttpStackOptions;

type OptionCheck = 'string' | 'boolean' | 'milliseconds' | 'copyConditions' | 'retries';
// Keyed by every option, so a new option fails the build until it is validated here.
const S3_OPTION_CHECKS: Record<keyof S3StorageConstructorOptions, OptionCheck> = {
  region: 'string', endpointUrl: 'string', allowHttp: 'boolean', anonymous: 'boolean', forcePathStyle: 'boolean',
  unquotedIfMatch: 'boolean', copyConditions: 'copyConditions', requestTimeoutMs: 'milliseconds',
  operationTimeoutMs: 'milliseconds', retries: 'retries',
};

function validOption(check: OptionCheck, value: unknown): boolean {
  switch (check) {
    case 'string':
      return typeof value === 'string';
    case 'boolean':
      return typeof value === 'boolean';
    case 'milliseconds':
      return typeof value === 'number' && Number.isSafeInteger(value) && value > 0;
    case 'copyConditions':
      return value === 'server' || value === 'client';
    case 'retries':
      return value === false || (typeof value === 'object' && value !== null);
  }
}

function invalid(message: string): Error {
  return floeError('INVALID_ARGUMENT', `Storage.newS3: ${message}`);
}

/** The S3 backend's options from newS3's arguments; throws INVALID_ARGUMENT for anything it cannot honour. */
function s3BackendOptions(bucket: string, prefix: string | null | undefined, credentials: S3Credentials | null | undefined, options: S3StorageConstructorOptions): S3StorageOptions {
  for (const [name, value] of Object.entries(options)) {
    if (value === undefined) continue;
    const check = (S3_OPTION_CHECKS as Record<string, OptionCheck | undefined>)[name];
    if (!check) throw invalid(`unknown option ${JSON.stringify(name)}; known: ${Object.keys(S3_OPTION_CHECKS).join(', ')}`);
    if (!validOption(check, value)) throw invalid(`option ${name} must be ${check === 'milliseconds' ? 'a positive integer (ms)' : check === 'copyConditions' ? "'server' or 'client'" : check === 'retries' ? 'retry options or false' : `a ${check}`}, got ${JSON.stringify(value)}`);
  }
  if (typeof bucket !== 'string' || bucket === '') throw invalid('a bucket name is required');
  const type = credentials?.type ?? 'FromEnv';
  if (type !== 'FromEnv' && type !== 'Anonymous' && type !== 'Static') throw invalid(`unknown credentials type ${JSON.stringify(type)}`);
  const anonymous = options.anonymous ?? type === 'Anonymous';
  if (anonymous && type === 'Static') throw invalid('anonymous: true contradicts Static credentials');
  if (!anonymous && type === 'Anonymous') throw invalid("anonymous: false contradicts { type: 'Anonymous' } credentials");
  const statics = credentials?.type === 'Static' ? credentials.field0 : undefined;
  if (statics && (typeof statics.accessKeyId !== 'string' || typeof statics.secretAccessKey !== 'string')) {
    throw invalid('Static credentials need field0.accessKeyId and field0.secretAccessKey');
  }
  if (options.endpointUrl !== undefined) {
    let url: URL;
    try {
      url = new URL(options.endpointUrl);
    } catch (err) {
      throw floeError('INVALID_ARGUMENT', `Storage.newS3: endpointUrl is not a URL: ${JSON.stringify(options.endpointUrl)}`, { cause: err });
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw invalid(`endpointUrl must be http(s), got ${JSON.stringify(options.endpointUrl)}`);
    if (url.protocol === 'http:' && options.allowHttp === false) throw invalid(`endpointUrl ${options.endpointUrl} is plain http and allowHttp is false`);
  }
  return {
    bucket,
    ...(prefix ? { prefix } : {}),
    ...(options.endpointUrl !== undefined ? { endpoint: options.endpointUrl } : {}),
    region: options.region ?? 'us-east-1',
    ...(statics ? { credentials: statics } : {}),
    ...(anonymous ? { anonymous: true } : {}),
    forcePathStyle: options.forcePathStyle ?? false,
    unquotedIfMatch: options.unquotedIfMatch ?? false,
    copyConditions: options.copyConditions ?? 'client',
    requestTimeoutMs: options.requestTimeoutMs ?? 30_000,
  };
}

/**
 * Where a repository lives: wraps an {@link ObjectStorage} backend. The constructors mirror the
 * reference JS API (`newInMemory`, `newLocalFilesystem`, `newS3`), plus `newSqlite` and
 * `fromObjectStorage` for any backend.
 */
export class Storage {
  private constructor(readonly backend: ObjectStorage) {}

  /** A fresh in-memory storage ({@link MemoryStorage}): for tests and scratch repositories. */
  static newInMemory(): Storage {
    return new Storage(new MemoryStorage());
  }

  /** A directory on the local filesystem ({@link FsStorage}), created if missing. */
  static newLocalFilesystem(path: string): Storage {
    return new Storage(new FsStorage({ root: path }));
  }

  /**
   * A single SQLite file ({@link SqliteStorage}), created if missing; needs `better-sqlite3`. A
   * file that is not a Floe repository is refused (NOT_A_REPOSITORY) and left untouched, unless
   * `claimForeignDatabase` adds Floe's tables to another application's database.
   */
  static newSqlite(file: string, options: { claimForeignDatabase?: boolean } = {}): Storage {
    return new Storage(new SqliteStorage({ file, ...options }));
  }

  /**
   * An S3-compatible bucket: the S3 backend (one attempt per HTTP request, each aborted after
   * `requestTimeoutMs`) inside `withRetries` (on by default) and, if asked, `withTimeouts`.
   * Async like before: the AWS SDK is loaded by the first request, not by this call.
   */
  static async newS3(bucket: string, prefix?: string | null, credentials?: S3Credentials | null, options: S3StorageConstructorOptions = {}): Promise<Storage> {
    let backend: ObjectStorage = new S3Storage(s3BackendOptions(bucket, prefix, credentials, options));
    if (options.retries !== false) backend = withRetries(backend, options.retries ?? {});
    if (options.operationTimeoutMs !== undefined) backend = withTimeouts(backend, { timeoutMs: options.operationTimeoutMs });
    return new Storage(backend);
  }

  /**
   * A repository published over HTTP(S), read-only (`HttpStorage`): a static host, a public
   * bucket, a CDN or `floe serve`'s raw route. Retries transient failures (honouring Retry-After)
   * with at most `maxConcurrentRequests` requests in flight, and merges ranged reads of one object
   * that arrive together.
   */
  static newHttp(url: string, options: HttpStorageConstructorOptions = {}): Storage {
    return new Storage(httpStorageStack(url, options));
  }

  /**
   * The storage a location names: `http(s)://…` is {@link newHttp}, `file://…` or a plain path
   * a local directory ({@link newLocalFilesystem}). S3 needs credentials and options: use
   * {@link newS3}. An unknown scheme is INVALID_ARGUMENT, listing the known ones.
   */
  static at(location: string): Storage {
    const parsed = parseLocation(location);
    switch (parsed.kind) {
      case 'http':
        return Storage.newHttp(parsed.url);
      case 'path':
        return Storage.newLocalFilesystem(parsed.path);
      case 's3':
        throw floeError('INVALID_ARGUMENT', `${location}: open S3 repositories with Storage.newS3(bucket, prefix, credentials, options), which takes the credentials and endpoint`);
    }
  }

  /** Any backend implementing Floe's ObjectStorage contract. */
  static fromObjectStorage(backend: ObjectStorage): Storage {
    return new Storage(backend);
  }

  /** Closes the backend (a SQLite file is checkpointed and left as one file). Safe to call again. */
  close(): Promise<void> {
    return this.backend.close();
  }

  /** {@link close}, for `await using`. */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}

/**
 * Where a repository lives: a {@link Storage}, any {@link ObjectStorage} directly, or a location
 * ({@link Storage.at}: `https://…`, `file://…`, a path).
 */
export type StorageLike = Storage | ObjectStorage | string;

export function objectStorageOf(storage: StorageLike): ObjectStorage {
  if (storage instanceof Storage) return storage.backend;
  if (typeof storage === 'string') return Storage.at(storage).backend;
  if (!isObjectStorage(storage)) {
    throw floeError('INVALID_ARGUMENT', `a repository needs a Storage (Storage.newLocalFilesystem, newInMemory, ...), an ObjectStorage or a location ('https://…', a path), got ${shownValue(storage)}`);
  }
  return storage;
}
