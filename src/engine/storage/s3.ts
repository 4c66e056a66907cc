// S3-compatible backend (@aws-sdk/client-s3), tested against a real Ceph RADOS gateway.
// Conditional create is `If-None-Match: *`, conditional update `If-Match: <etag>`; the version
// token is the ETag without quotes. A conditional write answered with 409, 5xx or nothing at all
// is "not known to be committed": the object is re-read and the write counts as done only if it
// holds exactly our bytes (a single-part ETag is the MD5 of the body), never assumed.
// One attempt per request: retries belong to the `withRetries` wrapper, which never retries a
// failed precondition. Large reads are split into parallel ranged GETs pinned to one ETag.
// The AWS SDK (~0.25 s to load) is imported on the first request, so importing Floe or building
// an S3Storage costs nothing until S3 is used. A caller's signal is checked before each request
// and aborts the HTTP request in flight (ABORTED); a write aborted in flight may have happened.
// This module is the public class and its option checks; the requests themselves (s3-requests.ts)
// load with the first call, so `import 'floe'` does not carry S3 code a program may never use.
import { floeError } from '../../errors.ts';
import { validateKey } from './keys.ts';
import type { S3Requests, S3StorageOptions } from './s3-requests.ts';
import type {
  AbortOptions, ObjectGetOptions, ByteRange, CopyOptions, GetResult, ListDirResult, ListOptions, ObjectInfo, ObjectStorage, PutOptions, VersionToken,
} from './types.ts';

export type { S3ClientLike, S3StorageOptions } from './s3-requests.ts';

const positive = (name: string, value: number | undefined) => {
  if (value !== undefined && !(Number.isSafeInteger(value) && value > 0)) {
    throw floeError('INVALID_ARGUMENT', `S3 storage option ${name} must be a positive integer, got ${String(value)}`);
  }
};

function validateOptions(options: S3StorageOptions): void {
  if (typeof options.bucket !== 'string' || options.bucket === '') throw floeError('INVALID_ARGUMENT', 'S3 storage needs a bucket name');
  if (options.prefix) validateKey(options.prefix, 'S3 storage prefix');
  if (options.copyConditions !== undefined && options.copyConditions !== 'server' && options.copyConditions !== 'client') {
    throw floeError('INVALID_ARGUMENT', `copyConditions must be 'server' or 'client', got ${JSON.stringify(options.copyConditions)}`);
  }
  if (options.anonymous && options.credentials) throw floeError('INVALID_ARGUMENT', 'S3 storage: anonymous requests cannot use credentials; pass one or the other');
  positive('partSize', options.partSize);
  positive('readConcurrency', options.readConcurrency);
  positive('requestTimeoutMs', options.requestTimeoutMs);
  positive('listPageSize', options.listPageSize);
}

/**
 * S3-compatible {@link ObjectStorage} (AWS, Ceph RGW, MinIO; needs the optional peer
 * `@aws-sdk/client-s3`, loaded on the first request). Conditional writes use `If-None-Match: *` and
 * `If-Match`; a write whose outcome is unknown is re-read, never assumed. Makes one attempt per
 * request: wrap it in {@link withRetries} for retries.
 */
export class S3Storage implements ObjectStorage {
  readonly kind = 's3';
  readonly bucket: string;
  /** Key prefix of this storage inside the bucket: '' or ending in '/'. */
  readonly root: string;
  private readonly options: S3StorageOptions;
  private loading: Promise<S3Requests> | undefined;

  constructor(options: S3StorageOptions) {
    validateOptions(options);
    this.options = options;
    this.bucket = options.bucket;
    this.root = options.prefix ? `${options.prefix}/` : '';
  }

  /** Creates the bucket if it does not exist (tests, first use). */
  async ensureBucket(options?: AbortOptions): Promise<void> {
    return (await this.requests()).ensureBucket(options);
  }

  async get(key: string, range?: ByteRange, options?: ObjectGetOptions): Promise<GetResult | null> {
    return (await this.requests()).get(key, range, options);
  }

  async head(key: string, options?: AbortOptions): Promise<ObjectInfo | null> {
    return (await this.requests()).head(key, options);
  }

  async put(key: string, bytes: Uint8Array, options?: PutOptions): Promise<{ version: VersionToken }> {
    return (await this.requests()).put(key, bytes, options);
  }

  async copy(from: string, to: string, options?: CopyOptions): Promise<{ version: VersionToken }> {
    return (await this.requests()).copy(from, to, options);
  }

  async *list(prefix: string, options?: ListOptions): AsyncIterable<ObjectInfo> {
    yield* (await this.requests()).list(prefix, options);
  }

  async listDir(prefix: string, options?: AbortOptions): Promise<ListDirResult> {
    return (await this.requests()).listDir(prefix, options);
  }

  async delete(keys: readonly string[], options?: AbortOptions): Promise<void> {
    return (await this.requests()).delete(keys, options);
  }

  /** Destroys the client Floe made (never one passed in `client`); nothing to do before the first call. */
  async close(): Promise<void> {
    if (this.loading) await (await this.loading).close();
  }

  /** {@link close}, for `await using`. */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  private requests(): Promise<S3Requests> {
    return (this.loading ??= import('./s3-requests.ts').then((m) => new m.S3Requests(this.options, this.bucket, this.root)));
  }
}
