// Read-only storage over plain HTTP(S): a repository or Zarr store published on a static web
// server, a public bucket, a CDN or `floe serve`'s raw route. Objects are `GET base/key`; ranged
// reads send `Range` and every answer is checked (http-ranges.ts): a server that ignores Range is
// sliced locally (with a one-time warning) or refused, never trusted. Mutable objects (the repo
// info file, spec-1 refs and config) are revalidated with their ETag; every other Icechunk object
// is write-once and read as it is. Listing works where the host offers S3-style XML listings;
// elsewhere the operations that need it are refused by name. Writes are refused (READ_ONLY).
// One attempt per request, like the S3 backend: retries, limits and deadlines are the wrappers'
// (Storage.newHttp adds them). This module is the light public class; its requests load with the
// first call (http-requests.ts).
import { floeError } from '../../errors.ts';
import { httpBaseUrl, validateHttpOptions, type HttpStorageOptions, type LinkEstimate } from './http-options.ts';
import type { HttpRequests } from './http-requests.ts';
import type { MultiRangeResult } from './range-batching.ts';
import type {
  AbortOptions, ObjectGetOptions, ByteRange, CopyOptions, GetResult, ListDirResult, ListOptions, ObjectInfo, ObjectStorage, PutOptions, VersionToken,
} from './types.ts';

export type { HttpStorageOptions, LinkEstimate } from './http-options.ts';

/**
 * Read-only {@link ObjectStorage} over HTTP(S) (`fetch`): ranged and suffix reads checked on every
 * answer, ETag revalidation of the mutable objects, S3-style XML listing where offered, typed
 * errors for 401/403 and for servers that mishandle ranges; writes fail with READ_ONLY. One
 * attempt per request: `Storage.newHttp` wraps it with retries (honouring Retry-After) and a limit.
 */
export class HttpStorage implements ObjectStorage {
  readonly kind = 'http';
  /** The base URL, ending in '/'. */
  readonly url: string;
  private readonly options: HttpStorageOptions;
  private loading: Promise<HttpRequests> | undefined;
  private loaded: HttpRequests | undefined;

  constructor(options: HttpStorageOptions) {
    this.url = httpBaseUrl(options.url).href;
    validateHttpOptions(options);
    this.options = options;
  }

  async get(key: string, range?: ByteRange, options?: ObjectGetOptions): Promise<GetResult | null> {
    return (await this.requests()).get(key, range, options);
  }

  async head(key: string, options?: AbortOptions): Promise<ObjectInfo | null> {
    return (await this.requests()).head(key, options);
  }

  async *list(prefix: string, options?: ListOptions): AsyncIterable<ObjectInfo> {
    yield* (await this.requests()).list(prefix, options);
  }

  async listDir(prefix: string, options?: AbortOptions): Promise<ListDirResult> {
    return (await this.requests()).listDir(prefix, options);
  }

  put(key: string, _bytes: Uint8Array, _options?: PutOptions): Promise<{ version: VersionToken }> {
    return Promise.reject(this.readOnly('write', key));
  }

  copy(from: string, _to: string, _options?: CopyOptions): Promise<{ version: VersionToken }> {
    return Promise.reject(this.readOnly('copy', from));
  }

  delete(keys: readonly string[], _options?: AbortOptions): Promise<void> {
    return Promise.reject(this.readOnly('delete', keys[0] ?? ''));
  }

  /** Whether multi-range requests are worth sending to this host (until it shows it ignores them). */
  get multiRange(): boolean {
    return this.loaded?.multiRange ?? true;
  }

  /** Several ranges of one object in one request, each checked (see HttpRequests.getRanges); null when it is absent. */
  async getRanges(key: string, ranges: readonly { offset: number; length: number }[], options?: AbortOptions): Promise<MultiRangeResult | null> {
    return (await this.requests()).getRanges(key, ranges, options);
  }

  /** The round trip and transfer rate measured so far (range batching sizes its gaps by them). */
  linkEstimate(): LinkEstimate | undefined {
    return this.loaded?.linkEstimate();
  }

  /** Nothing to release: fetch keeps no per-storage connection. */
  async close(): Promise<void> {}

  /** {@link close}, for `await using`. */
  async [Symbol.asyncDispose](): Promise<void> {}

  private readOnly(operation: string, key: string): Error {
    return floeError('READ_ONLY', `cannot ${operation} ${JSON.stringify(key)}: HTTP storage (${this.url}) is read-only; write to the repository's own storage (a directory, S3) and publish it again`, { where: key });
  }

  private requests(): Promise<HttpRequests> {
    return (this.loading ??= import('./http-requests.ts').then((m) => (this.loaded = new m.HttpRequests(this.url, this.options))));
  }
}
