// Fetching a chunk's bytes for the read path: where reads go (ChunkReader), reused read buffers
// and decompression scratch shared by the reads of a thread, reading a chunk from its local file
// into the thread's reused file buffer, and errors named after the chunk.
import { floeError, isFloeError } from '../errors.ts';
import { throwIfAborted } from './abort.ts';
import { ScratchBuffer, type CodecChain } from '../format/codecs/pipeline.ts';
import type { DecodePool } from './decode-pool.ts';
import { readLocalFile, spanFile } from './local-file.ts';
import { objectTooLarge } from './storage/object-bound.ts';
import type { AbortOptions, DecodedChunkSource, LocalFileSpan, ZarrStore } from './store.ts';

/** A byte range of an object: an inner chunk of a shard. */
export interface ByteSpan {
  readonly offset: number;
  readonly length: number;
}

/** Where chunk reads go and how chunks are decoded (inline, or on a worker pool). */
export interface ChunkReader {
  readonly store: ZarrStore;
  /** Workers for big chunks; chunks decode inline until one of them is ready. */
  readonly pool: DecodePool | undefined;
  /** Decompression buffer for inline decodes; safe because a decode and its copy never yield. */
  readonly scratch: ScratchBuffer;
  readonly buffers: ReadBuffers;
  /** The read's request options (its signal), passed to every store call. */
  readonly request: AbortOptions | undefined;
  /** The store's decoded-chunk cache, when this read may use it (compressed chunks). */
  readonly decoded?: DecodedChunkSource | undefined;
  /** Whether chunks this read decodes only in part are kept in `decoded` (a small read). */
  readonly admit?: boolean;
}

/** Reads whose encoded size may exceed this get a buffer of their own, not a reused one. */
const MAX_REUSED_READ_BYTES = 32 * 1024 * 1024;

/**
 * Reusable read buffers, one per read in flight. Reads on the main thread share one set (see
 * `mainThreadReadBuffers`), so a burst of small reads does not fault in a fresh buffer per chunk;
 * at most `keep` buffers wait for reuse.
 */
export class ReadBuffers {
  private readonly free: Uint8Array[] = [];

  constructor(private readonly keep = 8) {}

  take(n: number): Uint8Array {
    for (const [i, buffer] of this.free.entries()) {
      if (buffer.length < n) continue;
      this.free.splice(i, 1);
      return buffer;
    }
    return new Uint8Array(n);
  }

  give(buffer: Uint8Array): void {
    if (this.free.length >= this.keep) this.free.shift();
    this.free.push(buffer);
  }
}

const sharedReadBuffers = new ReadBuffers();
const sharedScratch = new ScratchBuffer();

/** Read buffers every read of this thread shares (each buffer is taken by one read at a time). */
export function mainThreadReadBuffers(): ReadBuffers {
  return sharedReadBuffers;
}

/**
 * The scratch inline decodes of this thread share (a decode and its copy never yield, so two
 * never overlap); a read of chunks over 32 MiB gets its own, so none stays that large.
 */
export function inlineScratch(chunkBytes: number): ScratchBuffer {
  return chunkBytes <= MAX_REUSED_READ_BYTES ? sharedScratch : new ScratchBuffer();
}

/** A chunk's encoded bytes, and how to hand back the reused buffer they may sit in. */
export interface Fetched {
  readonly bytes: Uint8Array;
  readonly release: () => void;
}

/**
 * Reads a chunk into a reused buffer when the store can and its encoded size is bounded well.
 * `bound` is the most bytes any encoding of the chunk takes: a larger object is refused
 * (LIMIT_EXCEEDED), by the backend before reading where it knows the size, here otherwise.
 */
export async function fetchChunk(io: ChunkReader, key: string, bound: number, request: AbortOptions | undefined): Promise<Fetched | undefined> {
  if (io.store.getInto && bound <= MAX_REUSED_READ_BYTES) {
    const buffer = io.buffers.take(bound);
    let kept = false;
    try {
      const n = await io.store.getInto(key, buffer, request);
      if (n === undefined) return undefined;
      if (n <= buffer.length) {
        if (n > bound) throw objectTooLarge(key, n, bound);
        kept = true;
        return { bytes: buffer.subarray(0, n), release: () => io.buffers.give(buffer) };
      }
    } finally {
      if (!kept) io.buffers.give(buffer);
    }
  }
  const bytes = await io.store.get(key, { ...request, maxBytes: bound });
  if (bytes && bytes.length > bound) throw objectTooLarge(key, bytes.length, bound);
  return bytes && { bytes, release: () => {} };
}

export async function fetchRange(io: ChunkReader, key: string, range: ByteSpan, request: AbortOptions): Promise<Fetched | undefined> {
  const bytes = await io.store.getRange(key, range, request);
  if (!bytes || bytes.length !== range.length) {
    throw floeError('CORRUPT_OBJECT', `a shard index entry points past the end of the shard (bytes ${range.offset}+${range.length})`, { where: key });
  }
  return { bytes, release: () => {} };
}

/** Where a chunk lies in a local file: its span, null when it has none, NOT_LOCAL when not local. */
export async function localSpan(io: ChunkReader, key: string, request: AbortOptions | undefined): Promise<LocalFileSpan | null | typeof NOT_LOCAL> {
  if (!io.store.localFile) return NOT_LOCAL;
  const span = await io.store.localFile(key, request);
  if (span === undefined) return NOT_LOCAL;
  throwIfAborted(request?.signal, key);
  return span;
}

export const NOT_LOCAL = Symbol('not in a local file');

/** The part `range` of a chunk's local file span (an inner chunk of a shard): it must be there. */
export function withinSpan(span: LocalFileSpan, range: ByteSpan): LocalFileSpan {
  return { root: span.root, key: span.key, offset: (span.offset ?? 0) + range.offset, length: range.length, required: true };
}

/** A chunk whose file is missing: fill, unless the chunk is known to exist (then NOT_FOUND). */
export function checkMissing(key: string, span: LocalFileSpan | null): void {
  if (span?.required) throw floeError('NOT_FOUND', `the object holding this chunk is missing: ${spanFile(span)}`, { where: key });
}

/**
 * Reads a chunk's local file into this thread's reused file buffer (decode it before any await:
 * the next read overwrites it); undefined when the file does not exist. File-system failures are
 * STORAGE_ERROR, damage CORRUPT_OBJECT, both naming the chunk.
 */
export function readLocalChunk(key: string, span: LocalFileSpan, chain: CodecChain): Uint8Array | undefined {
  return namingChunk(key, span, () => readLocalFile(span, chain.encodedSizeBound()));
}

export function namingChunk<T>(key: string, span: LocalFileSpan, read: () => T): T {
  try {
    return read();
  } catch (err) {
    throw chunkReadError(key, span, err);
  }
}

/** namingChunk for an asynchronous read. */
export async function namingChunkAsync<T>(key: string, span: LocalFileSpan, read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (err) {
    throw chunkReadError(key, span, err);
  }
}

function chunkReadError(key: string, span: LocalFileSpan, err: unknown): unknown {
  if (isFloeError(err)) return floeError(err.code, err.message, { where: key, cause: err, details: err.details });
  return floeError('STORAGE_ERROR', `reading ${spanFile(span)} failed: ${(err as Error).message}`, { where: key, cause: err });
}

/** Attaches the store key to codec errors so messages say which chunk failed. */
export function withKey<T>(key: string, fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    if (isFloeError(err) && !err.where) throw floeError(err.code, err.message, { where: key, cause: err, details: err.details });
    if (isFloeError(err)) throw err;
    throw floeError('CORRUPT_OBJECT', `chunk could not be decoded: ${(err as Error).message}`, { where: key, cause: err });
  }
}
