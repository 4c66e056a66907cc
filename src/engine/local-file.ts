// Reading a chunk straight from a local file (a directory store's object, or a byte range of a
// repository's chunk object), synchronously, into a buffer reused by every read of this thread:
// decode workers do it, and so does the main thread while they start or for small reads. The
// bytes returned are valid until the next read of this thread: decode them before any await.
// The file is opened as the filesystem backend opens it: every directory from the storage root
// down, and the name itself, without following a link (storage/fs-dirs.ts), so a repository
// whose chunks/ is a link out of it reads nothing outside (INVALID_KEY).
import { closeSync, fstatSync, readSync, readv, readvSync } from 'node:fs';
import path from 'node:path';
import { floeError } from '../errors.ts';
import { limitExceeded } from '../format/limits.ts';
import { openFileIn } from './storage/fs-dirs.ts';
import type { LocalFileSpan } from './store.ts';

let fileBuffer = new Uint8Array(0);

/** Chunks larger than this are read into a buffer of their own, so the thread keeps no huge one. */
const KEEP_BYTES = 32 * 1024 * 1024;

/** Whether `bytes` sit in this thread's reused file buffer (never to be transferred or kept). */
export function inFileBuffer(bytes: ArrayBufferView): boolean {
  return bytes.buffer === fileBuffer.buffer;
}

/**
 * Reads a local file, or `length` bytes of it at `offset`, into this thread's reused buffer;
 * undefined when the file does not exist. A file too short for its span is damaged, not empty;
 * one larger than any encoding of the chunk (`maxBytes`) is refused before it is read.
 */
export function readLocalFile(span: LocalFileSpan, maxBytes: number): Uint8Array | undefined {
  const fd = openChunkFile(span);
  if (fd === undefined) return undefined;
  try {
    const offset = span.offset ?? 0;
    const size = span.length ?? fstatSync(fd).size - offset;
    if (size > maxBytes) {
      throw limitExceeded('encoded-bytes', maxBytes, `${spanFile(span)} holds ${size} bytes for one chunk, more than any encoding of it can take; the object is damaged or hostile`, { actual: size });
    }
    if (fileBuffer.length < size && size <= KEEP_BYTES) fileBuffer = new Uint8Array(size);
    const target = size <= KEEP_BYTES ? fileBuffer : new Uint8Array(size);
    let done = 0;
    while (done < size) {
      const n = readSync(fd, target, done, size - done, offset + done);
      if (n === 0) break;
      done += n;
    }
    if (span.length !== undefined && done < span.length) {
      throw floeError('CORRUPT_OBJECT', `${spanFile(span)} ends ${span.length - done} bytes before the chunk it holds (bytes ${offset}-${offset + span.length - 1})`);
    }
    return target.subarray(0, done);
  } finally {
    closeSync(fd);
  }
}

/** Linux's IOV_MAX: buffers one readv call takes. */
const IOV_MAX = 1024;

/**
 * Reads a plain (uncompressed) chunk's bytes from `fileOffset` of its span straight into `views`,
 * in order, with readv: the kernel copies into the result, with no buffer and no copy of ours.
 * `missing` when the file does not exist; `fallback` when the file's size is not the chunk's
 * (the ordinary path reads and reports it). Synchronous: for decode workers.
 */
export function readFileIntoViews(span: LocalFileSpan, chunkBytes: number, fileOffset: number, views: readonly Uint8Array[]): 'done' | 'missing' | 'fallback' {
  const opened = openChunkAt(span, chunkBytes, fileOffset);
  if (typeof opened === 'string') return opened;
  try {
    let at = opened.position;
    for (const batch of batches(views)) {
      const got = readvSync(opened.fd, batch.views, at);
      if (got !== batch.bytes) return 'fallback'; // shorter than its stat said: let the ordinary path see it
      at += got;
    }
    return 'done';
  } finally {
    closeSync(opened.fd);
  }
}

/**
 * readFileIntoViews for the main thread: the readv calls run on libuv's thread pool, so several
 * chunks are copied into the result (and its fresh pages faulted in) on other cores at once, with
 * no decode worker to start.
 */
export async function readFileIntoViewsAsync(span: LocalFileSpan, chunkBytes: number, fileOffset: number, views: readonly Uint8Array[]): Promise<'done' | 'missing' | 'fallback'> {
  const opened = openChunkAt(span, chunkBytes, fileOffset);
  if (typeof opened === 'string') return opened;
  try {
    let at = opened.position;
    for (const batch of batches(views)) {
      const got = await readvAsync(opened.fd, batch.views, at);
      if (got !== batch.bytes) return 'fallback';
      at += got;
    }
    return 'done';
  } finally {
    closeSync(opened.fd);
  }
}

/**
 * The chunk's file, open, and where its bytes from `fileOffset` start; `missing` without the file,
 * `fallback` (file closed again) when its size is not the chunk's.
 */
function openChunkAt(span: LocalFileSpan, chunkBytes: number, fileOffset: number): { fd: number; position: number } | 'missing' | 'fallback' {
  const fd = openChunkFile(span);
  if (fd === undefined) return 'missing';
  let position: number | undefined;
  try {
    position = startOf(fd, span, chunkBytes, fileOffset);
  } finally {
    if (position === undefined) closeSync(fd);
  }
  return position === undefined ? 'fallback' : { fd, position };
}

function openChunkFile(span: LocalFileSpan): number | undefined {
  return openFileIn(span.root, span.key) ?? undefined;
}

/** The span's file as a path, for messages. */
export function spanFile(span: LocalFileSpan): string {
  return path.join(span.root, ...span.key.split('/'));
}

/** Where the chunk's bytes from `fileOffset` start in the file; undefined when its size is wrong. */
function startOf(fd: number, span: LocalFileSpan, chunkBytes: number, fileOffset: number): number | undefined {
  const base = span.offset ?? 0;
  const size = span.length ?? fstatSync(fd).size - base;
  return size === chunkBytes ? base + fileOffset : undefined;
}

function* batches(views: readonly Uint8Array[]): Generator<{ views: Uint8Array[]; bytes: number }> {
  for (let i = 0; i < views.length; i += IOV_MAX) {
    const batch = views.slice(i, i + IOV_MAX);
    yield { views: batch, bytes: batch.reduce((n, v) => n + v.length, 0) };
  }
}

function readvAsync(fd: number, views: Uint8Array[], position: number): Promise<number> {
  return new Promise((resolve, reject) => readv(fd, views, position, (err, n) => (err ? reject(err) : resolve(n))));
}
