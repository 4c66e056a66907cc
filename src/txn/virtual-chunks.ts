// Reading virtual chunks: byte ranges of objects outside the repository. A location is served
// only by a virtual chunk container of the repository's config whose url prefix it starts with,
// and only if the caller authorized that container when opening the repository (the
// reference's `authorizeVirtualChunkAccess`). Local files (`file://`) and HTTP(S) are fetched
// here; other stores are refused with a clear error rather than read wrongly.
import { open, stat } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { floeError } from '../errors.ts';
import type { VirtualChunkRef } from '../format/icechunk/manifest.ts';
import type { VirtualChunkContainer } from './config.ts';

/** The reference's credential shapes; Floe uses only their presence for file and HTTP access. */
export type VirtualCredentials =
  | { type: 'HttpAccess' }
  | { type: 'S3'; field0: unknown }
  | { type: 'Gcs'; field0: unknown }
  | { type: 'Azure'; field0: unknown };

/** url prefix -> credentials (null: access without credentials). */
export type VirtualChunkAuthorization = Record<string, VirtualCredentials | null | undefined>;

export interface VirtualChunkAccess {
  containers: readonly VirtualChunkContainer[];
  authorized: VirtualChunkAuthorization;
}

const refused = (message: string, location: string, reason: string) =>
  floeError(reason === 'virtual-chunk-store-unsupported' ? 'UNSUPPORTED' : 'UNAUTHORIZED', message, { where: location, details: { reason } });

export function containerFor(containers: readonly VirtualChunkContainer[], location: string): VirtualChunkContainer | undefined {
  let best: VirtualChunkContainer | undefined;
  for (const c of containers) {
    if (location.startsWith(c.urlPrefix) && (!best || c.urlPrefix.length > best.urlPrefix.length)) best = c;
  }
  return best;
}

/** Throws unless some container of the config serves `location`. */
export function checkContainerExists(containers: readonly VirtualChunkContainer[], location: string): void {
  if (!containerFor(containers, location)) {
    throw refused(`no virtual chunk container serves ${location}; add one with this url prefix to the repository config`, location, 'virtual-chunk-no-container');
  }
}

/** Reads `length` bytes at `offset` inside the ref's range (the whole ref by default). */
export async function fetchVirtualChunk(access: VirtualChunkAccess, ref: VirtualChunkRef, within?: { offset: number; length: number }): Promise<Uint8Array> {
  const location = ref.location;
  const container = containerFor(access.containers, location);
  if (!container) {
    throw refused(`cannot read virtual chunk ${location}: no virtual chunk container in the repository config serves it`, location, 'virtual-chunk-no-container');
  }
  if (!(container.urlPrefix in access.authorized)) {
    throw refused(
      `reading virtual chunks from ${container.urlPrefix} is not authorized; pass authorizeVirtualChunkAccess: { ${JSON.stringify(container.urlPrefix)}: null } when opening the repository if you trust it`,
      location,
      'virtual-chunk-not-authorized',
    );
  }
  const offset = ref.offset + (within?.offset ?? 0);
  const length = within?.length ?? ref.length;
  if (location.startsWith('file://') && container.store.type === 'LocalFileSystem') return readFileRange(ref, offset, length);
  if (/^https?:\/\//.test(location) && container.store.type === 'Http') return readHttpRange(ref, offset, length, container.store.field0.headers ?? {});
  throw refused(
    `virtual chunks in ${container.store.type} containers (${location}) are not readable by Floe yet; only file:// and http(s):// containers are`,
    location,
    'virtual-chunk-store-unsupported',
  );
}

async function readFileRange(ref: VirtualChunkRef, offset: number, length: number): Promise<Uint8Array> {
  const file = fileURLToPath(ref.location);
  let info;
  try {
    info = await stat(file);
  } catch (err) {
    throw floeError('NOT_FOUND', `the file behind a virtual chunk is missing: ${file}`, { where: ref.location, cause: err });
  }
  if (ref.checksum && 'lastModified' in ref.checksum && Math.floor(info.mtimeMs / 1000) > ref.checksum.lastModified) {
    throw floeError('CHECKSUM_MISMATCH', `${file} was modified after the virtual chunk was recorded; the chunk may be stale`, { where: ref.location });
  }
  if (offset + length > info.size) {
    throw floeError('CORRUPT_OBJECT', `virtual chunk range ${offset}+${length} is past the end of ${file} (${info.size} bytes)`, { where: ref.location });
  }
  const handle = await open(file, 'r');
  try {
    const out = new Uint8Array(length);
    let done = 0;
    while (done < length) {
      const { bytesRead } = await handle.read(out, done, length - done, offset + done);
      if (bytesRead === 0) break;
      done += bytesRead;
    }
    return out;
  } finally {
    await handle.close();
  }
}

async function readHttpRange(ref: VirtualChunkRef, offset: number, length: number, headers: Record<string, string>): Promise<Uint8Array> {
  const request: Record<string, string> = { ...headers, range: `bytes=${offset}-${offset + length - 1}` };
  if (ref.checksum && 'etag' in ref.checksum) request['if-match'] = ref.checksum.etag;
  if (ref.checksum && 'lastModified' in ref.checksum) request['if-unmodified-since'] = new Date(ref.checksum.lastModified * 1000).toUTCString();
  let response: Response;
  try {
    response = await fetch(ref.location, { headers: request });
  } catch (err) {
    throw floeError('STORAGE_ERROR', `fetching virtual chunk ${ref.location} failed: ${(err as Error).message}`, { where: ref.location, cause: err });
  }
  if (response.status === 412) {
    throw floeError('CHECKSUM_MISMATCH', `${ref.location} changed since the virtual chunk was recorded`, { where: ref.location });
  }
  if (response.status === 404) throw floeError('NOT_FOUND', `virtual chunk source ${ref.location} is gone (HTTP 404)`, { where: ref.location });
  if (response.status !== 206 && response.status !== 200) {
    throw floeError('STORAGE_ERROR', `fetching virtual chunk ${ref.location} answered HTTP ${response.status}`, { where: ref.location });
  }
  const body = new Uint8Array(await response.arrayBuffer());
  // A server that ignores Range sends the whole object: cut the range out of it.
  const bytes = response.status === 200 ? body.subarray(offset, offset + length) : body;
  if (bytes.length !== length) {
    throw floeError('CORRUPT_OBJECT', `virtual chunk ${ref.location} returned ${bytes.length} bytes, expected ${length}`, { where: ref.location });
  }
  return bytes;
}
