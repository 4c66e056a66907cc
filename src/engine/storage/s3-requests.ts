// The S3 backend's requests (s3.ts has the public class and the header notes): conditional
// writes, ambiguous-write settling, parallel ranged reads, listing and batch deletes.
import type * as NodeCrypto from 'node:crypto';
import type { S3Client, S3ClientConfig } from '@aws-sdk/client-s3';
import { floeError } from '../../errors.ts';
import { importOptional, loadPackage } from '../../optional-dependency.ts';
import { throwIfAborted } from '../abort.ts';
import { validateDirPrefix, validateKey, validatePrefix } from './keys.ts';
import { mapLimit } from './limiter.ts';
import { checkPrecondition, preconditionFailed, validatePutOptions } from './preconditions.ts';
import { objectBound, objectTooLarge } from './object-bound.ts';
import { resolveRange, validateRange } from './ranges.ts';
import {
  httpStatusOf, isAmbiguousWriteFailure, isInvalidRange, isNotFound, isPreconditionFailed, storageFailure,
} from './s3-errors.ts';
import { transientError } from './transient.ts';
import type {
  AbortOptions, ByteRange, CopyOptions, ObjectGetOptions, GetResult, ListDirResult, ListOptions, ObjectInfo, ObjectStorage, PutOptions, VersionToken,
} from './types.ts';

/** Options of {@link S3Storage}: bucket, prefix, endpoint, credentials and server quirks. */
export interface S3StorageOptions {
  bucket: string;
  /** Root of the storage inside the bucket ('repos/a'), no leading or trailing '/'. */
  prefix?: string | undefined;
  endpoint?: string | undefined;
  /** Default 'us-east-1'. */
  region?: string | undefined;
  /** Without credentials (and not anonymous) the SDK's default chain applies: environment, profile files, … */
  credentials?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string } | undefined;
  /** Send unsigned requests (public buckets). Cannot be combined with `credentials`. Default false. */
  anonymous?: boolean | undefined;
  /** Path-style URLs (`endpoint/bucket/key`): needed by Ceph, MinIO and most self-hosted stores. */
  forcePathStyle?: boolean | undefined;
  /** Send If-Match ETags without quotes. Ceph RGW refuses a correct quoted ETag. Default false. */
  unquotedIfMatch?: boolean | undefined;
  /**
   * How `copy(..., {ifMatch})` guards its source. Default 'client': the source is read with
   * If-Match (one GET that returns exactly that version or 412) and its bytes are put under the
   * destination, so a lost condition writes nothing on any server that honours If-Match on GET.
   * 'server' sends x-amz-copy-source-if-match (one server-side copy, no bytes through the client)
   * and is only for servers that honour it (AWS). Ceph 16 ignores it and copies anyway: Floe then
   * sees the wrong ETag and deletes the destination before reporting PRECONDITION_FAILED, which
   * can race with another writer of the same destination key (see docs/storage.md).
   */
  copyConditions?: 'server' | 'client' | undefined;
  /** Reads larger than this are split into parallel ranged GETs. Default 8 MiB. */
  partSize?: number | undefined;
  /** Ranged GETs in flight for one large read. Default 8. */
  readConcurrency?: number | undefined;
  /** Abort one HTTP request after this long (TIMEOUT). Default 30 000 ms. */
  requestTimeoutMs?: number | undefined;
  /** Keys per ListObjectsV2 page. Default 1000. */
  listPageSize?: number | undefined;
  /**
   * A client to use instead of building one from the connection options above (not closed by
   * close()): an `S3Client` of @aws-sdk/client-s3.
   */
  client?: S3ClientLike | undefined;
}

/**
 * What S3Storage needs of a client; `S3Client` from @aws-sdk/client-s3 fits. Declared here so
 * Floe's type declarations do not require the SDK, an optional package, to be installed.
 */
export interface S3ClientLike {
  /** Sends one SDK command (GetObjectCommand, PutObjectCommand, …) and resolves to its output. */
  send(command: unknown, options?: { abortSignal?: AbortSignal }): Promise<unknown>;
}

type Sdk = typeof import('@aws-sdk/client-s3');
let sdkLoading: Promise<Sdk> | undefined;
const loadSdk = (): Promise<Sdk> => (sdkLoading ??= importOptional('@aws-sdk/client-s3', 'S3 storage', () => import('@aws-sdk/client-s3')));

function clientConfig(options: S3StorageOptions): S3ClientConfig {
  return {
    region: options.region ?? 'us-east-1',
    ...(options.endpoint ? { endpoint: options.endpoint } : {}),
    ...(options.credentials ? { credentials: options.credentials } : {}),
    // Unsigned requests: a signer that leaves the request as it is (the placeholder credentials
    // only keep the SDK from searching its credential chain; they are never sent).
    ...(options.anonymous ? { signer: { sign: async (request) => request }, credentials: { accessKeyId: 'anonymous', secretAccessKey: 'anonymous' } } : {}),
    forcePathStyle: options.forcePathStyle ?? false,
    // Default checksums make streaming uploads fail on Ceph (411) and cost CPU for nothing here.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    maxAttempts: 1, // see the header: retries are the wrapper's job
  };
}

/**
 * The requests of one {@link S3Storage}: everything it does once it is used. Loaded with its
 * first call (s3.ts), as the SDK is with its first request.
 */
export class S3Requests {
  private client: S3Client | undefined;
  private readonly partSize: number;

  constructor(
    private readonly options: S3StorageOptions,
    readonly bucket: string,
    readonly root: string,
  ) {
    this.partSize = options.partSize ?? 8 * 1024 * 1024;
    // The option's type is structural; the value is an S3Client (or one that behaves as one).
    this.client = options.client as S3Client | undefined;
  }

  /** The SDK and the client, both made on the first request. */
  private async sdk(): Promise<{ sdk: Sdk; client: S3Client }> {
    const sdk = await loadSdk();
    this.client ??= new sdk.S3Client(clientConfig(this.options));
    return { sdk, client: this.client };
  }

  /** Creates the bucket if it does not exist (tests, first use). */
  async ensureBucket(options?: AbortOptions): Promise<void> {
    const signal = options?.signal;
    throwIfAborted(signal, this.bucket);
    const { sdk, client } = await this.sdk();
    try {
      await client.send(new sdk.CreateBucketCommand({ Bucket: this.bucket }), this.call(signal));
    } catch (err) {
      const name = (err as { name?: string }).name;
      if (name !== 'BucketAlreadyOwnedByYou' && name !== 'BucketAlreadyExists') throw storageFailure('CreateBucket', this.bucket, err, signal);
    }
  }

  async get(key: string, range?: ByteRange, options?: ObjectGetOptions): Promise<GetResult | null> {
    const signal = options?.signal;
    throwIfAborted(signal, key);
    validateKey(key);
    if (range) validateRange(range, key);
    if (range && ('suffixLength' in range ? range.suffixLength === 0 : range.length === 0)) {
      // HTTP cannot ask for zero bytes ('bytes=-0' is ignored and returns everything).
      const info = await this.head(key, options);
      return info ? { bytes: new Uint8Array(0), version: info.version ?? '' } : null;
    }
    if (range && 'suffixLength' in range) return this.getSuffix(key, range.suffixLength, signal);
    const start = range?.offset ?? 0;
    const end = range?.length === undefined ? undefined : start + range.length;
    return this.readSpan(key, start, end, undefined, signal, objectBound(range, options));
  }

  async head(key: string, options?: AbortOptions): Promise<ObjectInfo | null> {
    const signal = options?.signal;
    throwIfAborted(signal, key);
    validateKey(key);
    const { sdk, client } = await this.sdk();
    try {
      const r = await client.send(new sdk.HeadObjectCommand({ Bucket: this.bucket, Key: this.root + key }), this.call(signal));
      return { key, size: r.ContentLength ?? 0, lastModified: r.LastModified ?? new Date(0), version: unquote(r.ETag) };
    } catch (err) {
      if (isNotFound(err)) return null;
      throw storageFailure('HeadObject', key, err, signal);
    }
  }

  async put(key: string, bytes: Uint8Array, options?: PutOptions): Promise<{ version: VersionToken }> {
    const signal = options?.signal;
    throwIfAborted(signal, key);
    validateKey(key);
    validatePutOptions(options, key);
    const conditional = options?.ifMatch !== undefined || options?.ifNoneMatch !== undefined;
    const { sdk, client } = await this.sdk();
    try {
      const r = await client.send(
        new sdk.PutObjectCommand({
          Bucket: this.bucket,
          Key: this.root + key,
          Body: bytes,
          ContentLength: bytes.length,
          ...(options?.contentType ? { ContentType: options.contentType } : {}),
          ...(options?.metadata ? { Metadata: { ...options.metadata } } : {}),
          ...(options?.ifMatch !== undefined ? { IfMatch: this.etagHeader(options.ifMatch) } : {}),
          ...(options?.ifNoneMatch ? { IfNoneMatch: options.ifNoneMatch } : {}),
        }), this.call(signal));
      return { version: unquote(r.ETag) };
    } catch (err) {
      // Aborted in flight: whether the write happened is unknown, as after a TIMEOUT.
      if (!conditional || signal?.aborted) throw storageFailure('PutObject', key, err, signal);
      // AWS answers If-Match on a missing key with 404, Ceph with 412: both mean "not written".
      if (isPreconditionFailed(err) || isNotFound(err)) throw preconditionFailed(key, `the server refused it (${httpStatusOf(err)})`, err);
      if (isAmbiguousWriteFailure(err)) return this.settleAmbiguousWrite(key, bytes, options, err);
      throw storageFailure('PutObject', key, err, signal);
    }
  }

  async copy(from: string, to: string, options?: CopyOptions): Promise<{ version: VersionToken }> {
    const signal = options?.signal;
    throwIfAborted(signal, to);
    validateKey(from);
    validateKey(to);
    const ifMatch = options?.ifMatch;
    if (ifMatch !== undefined && (this.options.copyConditions ?? 'client') === 'client') {
      // Race-free: the GET returns exactly version `ifMatch` or fails, and only then is anything written.
      const source = await this.readSpan(from, 0, undefined, ifMatch, signal);
      if (!source) throw preconditionFailed(from, 'the copy source does not exist (ifMatch)');
      return this.put(to, source.bytes, { signal });
    }
    const { sdk, client } = await this.sdk();
    let etag: string;
    try {
      const r = await client.send(
        new sdk.CopyObjectCommand({
          Bucket: this.bucket,
          Key: this.root + to,
          CopySource: `${this.bucket}/${encodeURIComponent(this.root + from).replace(/%2F/g, '/')}`,
          ...(ifMatch !== undefined ? { CopySourceIfMatch: this.etagHeader(ifMatch) } : {}),
        }), this.call(signal));
      etag = unquote(r.CopyObjectResult?.ETag);
    } catch (err) {
      if (signal?.aborted) throw storageFailure('CopyObject', from, err, signal);
      if (isPreconditionFailed(err)) throw preconditionFailed(from, 'the copy source changed (ifMatch)', err);
      if (isNotFound(err)) {
        if (ifMatch !== undefined) throw preconditionFailed(from, 'the copy source does not exist (ifMatch)', err);
        throw floeError('NOT_FOUND', `cannot copy ${JSON.stringify(from)}: no such object`, { where: from, cause: err });
      }
      throw storageFailure('CopyObject', from, err, signal);
    }
    // A server that ignores the copy condition copies whatever is there: detect it by the ETag
    // (for single-part objects a copy keeps the content MD5) and take the copy back, so a lost
    // condition leaves no destination behind.
    if (ifMatch !== undefined && !ifMatch.includes('-') && etag !== ifMatch) {
      await this.delete([to]);
      throw preconditionFailed(from, `the server ignored the copy condition and copied version ${etag}, not ${ifMatch}; the copy was deleted (use copyConditions: 'client' with this server)`);
    }
    return { version: etag };
  }

  async *list(prefix: string, options?: ListOptions): AsyncIterable<ObjectInfo> {
    throwIfAborted(options?.signal, prefix);
    validatePrefix(prefix);
    let token: string | undefined;
    do {
      const page = await this.listPage(prefix, token, false, options?.startAfter, options?.signal);
      for (const o of page.Contents ?? []) yield this.infoOf(o);
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }

  async listDir(prefix: string, options?: AbortOptions): Promise<ListDirResult> {
    throwIfAborted(options?.signal, prefix);
    validateDirPrefix(prefix);
    const objects: ObjectInfo[] = [];
    const prefixes: string[] = [];
    let token: string | undefined;
    do {
      const page = await this.listPage(prefix, token, true, undefined, options?.signal);
      for (const o of page.Contents ?? []) objects.push(this.infoOf(o));
      for (const p of page.CommonPrefixes ?? []) if (p.Prefix) prefixes.push(p.Prefix.slice(this.root.length));
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    return { objects, prefixes };
  }

  async delete(keys: readonly string[], options?: AbortOptions): Promise<void> {
    const signal = options?.signal;
    throwIfAborted(signal, keys[0]);
    keys.forEach((key) => validateKey(key));
    const batches: string[][] = [];
    for (let i = 0; i < keys.length; i += 1000) batches.push(keys.slice(i, i + 1000));
    const { sdk, client } = await this.sdk();
    await mapLimit(batches, 4, async (batch) => {
      throwIfAborted(signal, batch[0]);
      let failed: { Key?: string | undefined; Code?: string | undefined; Message?: string | undefined }[];
      try {
        const r = await client.send(
          new sdk.DeleteObjectsCommand({
            Bucket: this.bucket,
            Delete: { Objects: batch.map((k) => ({ Key: this.root + k })), Quiet: true },
          }), this.call(signal));
        failed = (r.Errors ?? []).filter((e: { Code?: string | undefined }) => e.Code !== 'NoSuchKey');
      } catch (err) {
        throw storageFailure('DeleteObjects', batch[0] ?? '', err, signal);
      }
      if (failed.length > 0) {
        const first = failed.slice(0, 3).map((e) => `${e.Key}: ${e.Code} ${e.Message ?? ''}`).join('; ');
        throw floeError('STORAGE_ERROR', `S3 DeleteObjects left ${failed.length} objects: ${first}`, { where: failed[0]?.Key ?? '' });
      }
    });
  }

  async close(): Promise<void> {
    if (this.client && this.client !== this.options.client) this.client.destroy();
  }

  /** Per-request options: abort the HTTP request after `requestTimeoutMs`, or when the caller's signal fires. */
  private call(signal?: AbortSignal): { abortSignal: AbortSignal } {
    const deadline = AbortSignal.timeout(this.options.requestTimeoutMs ?? 30_000);
    return { abortSignal: signal ? AbortSignal.any([signal, deadline]) : deadline };
  }

  private etagHeader(version: VersionToken): string {
    return this.options.unquotedIfMatch ? version : `"${version}"`;
  }

  /**
   * A conditional write whose answer was lost or ambiguous (no answer, 409, 5xx: a throttling
   * gateway answers 503 without passing the request on). One HEAD decides what it means:
   * - the object holds our bytes (ETag = MD5 of a single-part body): written;
   * - a create (`ifNoneMatch`) finds the key absent, or an update (`ifMatch`) finds the version
   *   it was conditioned on: not written, and a retry is safe (still conditional): transient;
   * - anything else (other bytes under a create's key; another version, or none, under an
   *   update's): the condition no longer holds, PRECONDITION_FAILED.
   * The request may still land after the HEAD (a late fault): then the retry's condition fails,
   * and callers that take PRECONDITION_FAILED for "already written" check the bytes first
   * (create-once.ts), as commits check for their snapshot id (repo-info-store.ts `landed`).
   */
  private async settleAmbiguousWrite(key: string, bytes: Uint8Array, options: PutOptions, cause: unknown): Promise<{ version: VersionToken }> {
    const ours = loadPackage<typeof NodeCrypto>('node:crypto').createHash('md5').update(bytes).digest('hex');
    const current = await this.head(key);
    if (current && current.version === ours) return { version: ours };
    const answered = `the server answered ${httpStatusOf(cause) ?? 'nothing'}`;
    const unchanged = options.ifNoneMatch !== undefined ? current === null : current !== null && current.version === options.ifMatch;
    if (unchanged) {
      throw transientError(`S3 PutObject of ${JSON.stringify(key)} not applied: ${answered} and the object is as before; retry`, key, cause);
    }
    throw preconditionFailed(key, `${answered} and the object does not hold this write`, cause);
  }

  private async getSuffix(key: string, suffixLength: number, signal: AbortSignal | undefined): Promise<GetResult | null> {
    const { sdk, client } = await this.sdk();
    try {
      const r = await client.send(new sdk.GetObjectCommand({ Bucket: this.bucket, Key: this.root + key, Range: `bytes=-${suffixLength}` }), this.call(signal));
      const bytes = await bodyBytes(r.Body);
      const total = totalOf(r.ContentRange);
      // A server that ignored the Range header sent the whole object: cut it here.
      const cut = total === undefined ? bytes.subarray(resolveRange({ suffixLength }, bytes.length).start) : bytes;
      return { bytes: cut, version: unquote(r.ETag) };
    } catch (err) {
      if (isNotFound(err)) return null;
      if (isInvalidRange(err)) return this.emptyRead(key, signal);
      throw storageFailure('GetObject', key, err, signal);
    }
  }

  /**
   * Bytes [start, end) of an object (end undefined: to the end). The first GET tells the size and
   * ETag; the rest, if any, is fetched in parallel parts pinned to that ETag with If-Match.
   */
  /** `maxBytes` refuses an object whose first part tells it is larger, before the other parts are read. */
  private async readSpan(
    key: string, start: number, end: number | undefined, ifMatch: VersionToken | undefined, signal: AbortSignal | undefined, maxBytes?: number,
  ): Promise<GetResult | null> {
    const firstEnd = end === undefined ? start + this.partSize : Math.min(end, start + this.partSize);
    const first = await this.getPart(key, start, firstEnd, ifMatch, signal);
    if (!first) return null;
    const size = first.total ?? first.bytes.length;
    if (maxBytes !== undefined && size > maxBytes) throw objectTooLarge(key, size, maxBytes);
    if (first.total === undefined) {
      const { start: s, end: e } = resolveRange(end === undefined ? { offset: start } : { offset: start, length: end - start }, first.bytes.length);
      return { bytes: first.bytes.subarray(s, e), version: first.version };
    }
    const stop = Math.min(end ?? first.total, first.total);
    if (start + first.bytes.length >= stop) return { bytes: first.bytes, version: first.version };
    const out = new Uint8Array(stop - start);
    out.set(first.bytes, 0);
    const offsets: number[] = [];
    for (let at = start + first.bytes.length; at < stop; at += this.partSize) offsets.push(at);
    await mapLimit(offsets, this.options.readConcurrency ?? 8, async (at) => {
      const part = await this.getPart(key, at, Math.min(stop, at + this.partSize), first.version, signal);
      if (!part) throw preconditionFailed(key, 'the object was deleted while being read');
      out.set(part.bytes, at - start);
    });
    return { bytes: out, version: first.version };
  }

  private async getPart(
    key: string, start: number, end: number, ifMatch: VersionToken | undefined, signal: AbortSignal | undefined,
  ): Promise<{ bytes: Uint8Array; version: string; total?: number } | null> {
    throwIfAborted(signal, key);
    const { sdk, client } = await this.sdk();
    try {
      const r = await client.send(
        new sdk.GetObjectCommand({
          Bucket: this.bucket,
          Key: this.root + key,
          Range: `bytes=${start}-${end - 1}`,
          ...(ifMatch !== undefined ? { IfMatch: this.etagHeader(ifMatch) } : {}),
        }), this.call(signal));
      const total = totalOf(r.ContentRange);
      return { bytes: await bodyBytes(r.Body), version: unquote(r.ETag), ...(total !== undefined ? { total } : {}) };
    } catch (err) {
      if (isNotFound(err)) {
        if (ifMatch !== undefined) throw preconditionFailed(key, 'the object does not exist (ifMatch)', err);
        return null;
      }
      if (isPreconditionFailed(err)) throw preconditionFailed(key, 'the object changed (ifMatch)', err);
      if (isInvalidRange(err)) {
        // Past the end, or an empty object: no bytes, but the object may well exist.
        const empty = await this.emptyRead(key, signal);
        if (empty && ifMatch !== undefined) checkPrecondition(key, empty.version, { ifMatch });
        return empty ? { ...empty, total: start } : null;
      }
      throw storageFailure('GetObject', key, err, signal);
    }
  }

  private async emptyRead(key: string, signal: AbortSignal | undefined): Promise<GetResult | null> {
    const info = await this.head(key, { signal });
    return info ? { bytes: new Uint8Array(0), version: info.version ?? '' } : null;
  }

  private async listPage(prefix: string, token: string | undefined, delimited: boolean, startAfter: string | undefined, signal: AbortSignal | undefined) {
    throwIfAborted(signal, prefix);
    const { sdk, client } = await this.sdk();
    return client.send(
      new sdk.ListObjectsV2Command({
        Bucket: this.bucket,
        Prefix: this.root + prefix,
        MaxKeys: this.options.listPageSize ?? 1000,
        ...(token ? { ContinuationToken: token } : {}),
        ...(delimited ? { Delimiter: '/' } : {}),
        ...(startAfter !== undefined && !token ? { StartAfter: this.root + startAfter } : {}),
      }), this.call(signal)).catch((err: unknown) => {
      throw storageFailure('ListObjectsV2', prefix, err, signal);
    });
  }

  // The SDK's listing entries: every field may be present and undefined.
  private infoOf(o: { Key?: string | undefined; Size?: number | undefined; LastModified?: Date | undefined; ETag?: string | undefined }): ObjectInfo {
    return { key: (o.Key ?? '').slice(this.root.length), size: o.Size ?? 0, lastModified: o.LastModified ?? new Date(0), version: unquote(o.ETag) };
  }
}

function unquote(etag: string | undefined): string {
  return (etag ?? '').replace(/^W\//, '').replace(/^"(.*)"$/, '$1');
}

function totalOf(contentRange: string | undefined): number | undefined {
  const match = contentRange ? /\/(\d+)\s*$/.exec(contentRange) : null;
  return match ? Number(match[1]) : undefined;
}

async function bodyBytes(body: { transformToByteArray(): Promise<Uint8Array> } | undefined): Promise<Uint8Array> {
  return body ? body.transformToByteArray() : new Uint8Array(0);
}
