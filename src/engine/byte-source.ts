// A file read by byte ranges, for scanners that read a file's structure and never its data
// (virtual datasets): local files, and http(s):// URLs read through the HTTP storage stack
// (retries, a request limit, and range batching: reads issued together go out as one request or
// one multi-range request). Sources say how big the file is and its version (ETag, or the
// modification time), which the virtual refs record so a file changed after the scan is detected
// when read ({@link refChecksum}).
import { open, type FileHandle } from 'node:fs/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { floeError } from '../errors.ts';
import { throwIfAborted } from './abort.ts';
import type { HttpStackOptions } from './storage/http-stack.ts';
import type { AbortOptions, ObjectStorage } from './storage/types.ts';

export interface ByteSource {
  /** The URL virtual refs record (`file:///abs/path`). */
  readonly url: string;
  /** How the file is named in messages. */
  readonly name: string;
  readonly size: number;
  /** Modification time, when the source knows it. */
  readonly lastModified: Date | null;
  /** The HTTP ETag the file was read at (http sources whose server sends one). */
  readonly etag?: string | null;
  /** `length` bytes at `offset`; fewer only at the end of the file. */
  read(offset: number, length: number, options?: AbortOptions): Promise<Uint8Array>;
  close(): Promise<void>;
}

/** A local file as a byte source; NOT_FOUND when it cannot be opened. */
export async function openLocalFile(file: string): Promise<ByteSource> {
  let handle: FileHandle;
  try {
    handle = await open(file, 'r');
  } catch (err) {
    throw floeError('NOT_FOUND', `cannot open ${file}: ${(err as Error).message}`, { where: file, cause: err });
  }
  const info = await handle.stat();
  if (!info.isFile()) {
    await handle.close();
    throw floeError('INVALID_ARGUMENT', `${file} is not a regular file`, { where: file });
  }
  return {
    url: pathToFileURL(file).href,
    name: file,
    size: info.size,
    lastModified: info.mtime,
    async read(offset, length, options) {
      const want = Math.max(0, Math.min(length, info.size - offset));
      const out = new Uint8Array(want);
      let done = 0;
      while (done < want) {
        throwIfAborted(options?.signal, file);
        const { bytesRead } = await handle.read(out, done, want - done, offset + done);
        if (bytesRead === 0) break;
        done += bytesRead;
      }
      return done === want ? out : out.subarray(0, done);
    },
    close: () => handle.close(),
  };
}

/** What a virtual ref of `source` records to detect a change: its ETag when it has one, else its modification time. */
export function refChecksum(source: ByteSource): { etagChecksum?: string; lastModified: Date | null } {
  return source.etag ? { etagChecksum: source.etag, lastModified: null } : { lastModified: source.lastModified };
}

/** `file://` URLs and paths are local files; `http(s)://` URLs {@link openHttpSource}. */
export async function openByteSource(location: string, options?: AbortOptions): Promise<ByteSource> {
  if (/^https?:\/\//i.test(location)) return openHttpSource(location, {}, options);
  return openLocalFile(location.startsWith('file://') ? fileURLToPath(location) : location);
}

/** Bytes an HTTP source reads at least per request (aligned): a header's scattered small reads share blocks. */
export const HTTP_BLOCK_BYTES = 64 * 1024;
/** Blocks an HTTP source keeps (4 MiB): the metadata of a file, not its data. */
const HTTP_BLOCKS_KEPT = 64;

/**
 * A file on an HTTP(S) server as a byte source: one HEAD for its size and ETag, then reads in
 * aligned 64 KiB blocks (the last few kept), the blocks one read needs asked for together so range
 * batching sends them as one request. Reads longer than a block go out as they are. An answer at
 * another version than the HEAD's (the file changed while it was scanned) is CHECKSUM_MISMATCH.
 */
export async function openHttpSource(url: string, stack: HttpStackOptions = {}, options?: AbortOptions): Promise<ByteSource> {
  const parsed = new URL(url);
  const cut = parsed.pathname.lastIndexOf('/');
  const base = `${parsed.origin}${parsed.pathname.slice(0, cut + 1)}`;
  const key = decodeURIComponent(parsed.pathname.slice(cut + 1));
  if (key === '' || parsed.search !== '' || parsed.hash !== '') throw floeError('INVALID_ARGUMENT', `${url} does not name a file (a URL ending in a file name, without ? or #)`, { where: url });
  const { httpStorageStack } = await import('./storage/http-stack.ts');
  const storage: ObjectStorage = httpStorageStack(base, stack);
  const info = await storage.head(key, options);
  if (!info) throw floeError('NOT_FOUND', `cannot open ${url}: the server answered 404`, { where: url });
  const version = info.version ?? '';
  const etag = version !== '' && !version.startsWith('last-modified:') ? version : null;
  const size = info.size;
  const blocks = new Map<number, Promise<Uint8Array>>();
  const fetch = async (offset: number, length: number, request?: AbortOptions): Promise<Uint8Array> => {
    const got = await storage.get(key, { offset, length }, request);
    if (!got) throw floeError('NOT_FOUND', `${url} disappeared while it was read`, { where: url });
    if (version !== '' && got.version !== '' && got.version !== version) {
      throw floeError('CHECKSUM_MISMATCH', `${url} changed while it was scanned (version ${got.version}, first ${version}); scan it again`, { where: url });
    }
    return got.bytes;
  };
  const block = (b: number, request?: AbortOptions): Promise<Uint8Array> => {
    let p = blocks.get(b);
    if (p) {
      blocks.delete(b);
      blocks.set(b, p); // most recently used last
      return p;
    }
    p = fetch(b * HTTP_BLOCK_BYTES, Math.min(HTTP_BLOCK_BYTES, size - b * HTTP_BLOCK_BYTES), request);
    p.catch(() => blocks.delete(b));
    blocks.set(b, p);
    while (blocks.size > HTTP_BLOCKS_KEPT) blocks.delete(blocks.keys().next().value as number);
    return p;
  };
  return {
    url: parsed.href,
    name: parsed.href,
    size,
    lastModified: info.lastModified.getTime() > 0 ? info.lastModified : null,
    etag,
    async read(offset, length, request) {
      throwIfAborted(request?.signal, url);
      const want = Math.max(0, Math.min(length, size - offset));
      if (want === 0) return new Uint8Array(0);
      if (want > HTTP_BLOCK_BYTES) return fetch(offset, want, request);
      const first = Math.floor(offset / HTTP_BLOCK_BYTES);
      const last = Math.floor((offset + want - 1) / HTTP_BLOCK_BYTES);
      const parts = await Promise.all(Array.from({ length: last - first + 1 }, (_, i) => block(first + i, request)));
      const out = new Uint8Array(want);
      for (const [i, bytes] of parts.entries()) {
        const start = (first + i) * HTTP_BLOCK_BYTES;
        const from = Math.max(offset, start);
        const to = Math.min(offset + want, start + bytes.length);
        if (to > from) out.set(bytes.subarray(from - start, to - start), from - offset);
      }
      return out;
    },
    close: async () => {
      blocks.clear();
      await storage.close?.();
    },
  };
}
