// Chunk reads through the store's decoded-chunk cache (src/cache/decoded-chunks.ts): a small read
// that needs part of a compressed chunk keeps it decoded, so the next window over it copies, and
// concurrent windows share one fetch and decode. See docs/storage.md, "Reading chunks".
import { abortedError } from './abort.ts';
import type { DecodedChunkCache, LoadedChunk } from '../cache/decoded-chunks.ts';
import { rangeCacheKey } from '../cache/read-caches.ts';
import { copyTypedArray } from '../format/bytes.ts';
import { ScratchBuffer, type CodecChain } from '../format/codecs/pipeline.ts';
import { copyFromChunk, fillRegion } from '../format/zarr/projection.ts';
import type { StridedView } from '../format/zarr/ndarray.ts';
import { checkMissing, fetchChunk, fetchRange, localSpan, NOT_LOCAL, readLocalChunk, withinSpan, withKey, type ByteSpan, type ChunkReader } from './chunk-fetch.ts';
import { zipEvery } from './indexing.ts';
import type { ChunkProjection } from './selection.ts';

/**
 * Reads a chunk (or, with `range`, an inner chunk of a shard) through the store's decoded-chunk
 * cache: a cached chunk is copied from; a small read (`admit`) that needs only part of the chunk
 * loads it once for every concurrent reader and keeps it. False when the cache is not used:
 * the caller reads the chunk itself.
 */
export async function readCachedChunk(io: ChunkReader, key: string, range: ByteSpan | undefined, chain: CodecChain, ps: readonly ChunkProjection[], dst: StridedView): Promise<boolean> {
  const source = io.decoded;
  if (!source || !decodesWork(chain)) return false;
  const admit = io.admit === true && !selectsWholeChunk(ps, chain.spec.shape);
  if (!admit && source.cache.size === 0) return false; // nothing to find: skip the identity lookup
  const identity = await source.chunkIdentity(key, io.request);
  if (identity === undefined) return false;
  // The same bytes decode differently under another chain (metadata rewritten over old chunks).
  const cacheKey = `${range ? rangeCacheKey(identity, range.offset, range.length) : `${identity}#`}~${chainTag(chain)}`;
  const lanes = chain.spec.dataType.lanes;
  const found = await source.cache.lend(
    cacheKey,
    (signal) => loadDecoded(io, key, range, chain, source.cache, signal),
    (chunk) => copyFromChunk(chunk, ps, dst, lanes),
    { admit, signal: io.request?.signal, abortError: (signal) => abortedError(signal, key) },
  );
  if (found === undefined) return false;
  if (!found) fillRegion(dst, ps.map((p) => p.count), chain.spec.fillValue.memory, lanes);
  return true;
}

const chainTags = new WeakMap<CodecChain, string>();
const tagsByConfig = new Map<string, string>();
let tagCount = 0;

/** A short name for a chain's configuration (codecs and chunk spec), the same for equal chains. */
function chainTag(chain: CodecChain): string {
  let tag = chainTags.get(chain);
  if (tag !== undefined) return tag;
  const { shape, dataType, fillValue } = chain.spec;
  // 64-bit fill values are bigints, which JSON cannot hold: they go in as `<digits>n`.
  const config = JSON.stringify([chain.toJSON(), shape, dataType.name, fillValue.json], (_k, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v));
  if (tagsByConfig.size >= 10_000) tagsByConfig.clear(); // new tags then: misses, never mix-ups
  tag = tagsByConfig.get(config) ?? `c${++tagCount}`;
  tagsByConfig.set(config, tag);
  chainTags.set(chain, tag);
  return tag;
}

/** Fetches and decodes a chunk for the cache, into a buffer the cache may reuse after eviction. */
async function loadDecoded(io: ChunkReader, key: string, range: ByteSpan | undefined, chain: CodecChain, cache: DecodedChunkCache, signal: AbortSignal): Promise<LoadedChunk | undefined> {
  const request = { signal };
  const decode = (bytes: Uint8Array | undefined) => (bytes ? decodeForCache(key, chain, bytes, cache) : undefined);
  const span = await localSpan(io, key, request);
  if (span === null) return undefined;
  if (span !== NOT_LOCAL) {
    const bytes = readLocalChunk(key, range ? withinSpan(span, range) : span, chain);
    if (!bytes) checkMissing(key, range ? { ...span, required: true } : span);
    return decode(bytes); // at once: the bytes sit in this thread's reused file buffer
  }
  const fetched = range ? await fetchRange(io, key, range, request) : await fetchChunk(io, key, chain.encodedSizeBound(), request);
  if (!fetched) return undefined;
  try {
    // A codec decoding on the runtime's native streams (gzip, zlib in a browser) is awaited here.
    const step = chain.asyncBytes;
    if (step) return decodeForCache(key, step.rest, await step.decode(fetched.bytes).catch((err: unknown) => withKey(key, () => { throw err; })), cache);
    return decode(fetched.bytes);
  } finally {
    fetched.release();
  }
}

/** Decodes into a buffer from the cache; a chunk still pointing into `bytes` (reused) is copied. */
function decodeForCache(key: string, chain: CodecChain, bytes: Uint8Array, cache: DecodedChunkCache): LoadedChunk {
  const scratch = new CacheScratch(cache);
  const chunk = withKey(key, () => chain.decode(bytes, scratch));
  const data = chunk.data;
  const own = scratch.own;
  if (own && !Array.isArray(data) && data.buffer === own.buffer) return { chunk, own };
  if (own) cache.giveBack(own);
  if (!Array.isArray(data) && data.buffer === bytes.buffer) return { chunk: { ...chunk, data: copyTypedArray(data) } };
  return { chunk };
}


/** Whether decoding the chain is work worth caching (compression or reordering, not a plain copy). */
function decodesWork(chain: CodecChain): boolean {
  return chain.bytesCodecs.length > 0 || chain.arrayCodecs.length > 0 || chain.arrayToBytes.name !== 'bytes';
}

/** Whether projections select every element of a chunk of `shape`. */
function selectsWholeChunk(ps: readonly ChunkProjection[], shape: readonly number[]): boolean {
  return zipEvery(ps, shape, (p, n) => p.step === 1 && p.count === n);
}

/** Decompression into a buffer from the cache (reused once its entry is evicted). */
class CacheScratch extends ScratchBuffer {
  own: Uint8Array | undefined;

  constructor(private readonly cache: DecodedChunkCache) {
    super();
  }

  override take(n: number): Uint8Array {
    this.own = this.cache.takeBuffer(n);
    return this.own.subarray(0, n);
  }
}

