// A NumPy chunk (Zarr v1 and v2) is the array's raw bytes (C or F order, the dtype's byte order),
// maybe through filters, then through compressors. Floe reads it through a standard v3 codec
// chain: `v3Codecs` holds transpose for F order, the filters' v3 codecs, bytes with the byte order
// of what the filters write (vlen-utf8 for U<n>, the object codec for object arrays) and the
// leading compressors that have a v3 form (every numcodecs one has). What the chain cannot
// express runs outside it, in `decode`/`encode`: U<n>'s transcoding (UCS-4 <-> vlen-utf8 frames)
// and the compressors after it, or a v1 compressor without a v3 form. The outside compressors
// are held to decoded-size bounds like the chain's own (limits.ts): the innermost to what the v3
// chain can read (exact for fixed-size data), each outer one to what the next may write.
import { floeError, isFloeError } from '../../errors.ts';
import { buildCodecChain, compressedBound } from '../codecs/pipeline.ts';
import type { BytesToBytesCodec, CodecMetadata, DecodeLimits } from '../codecs/types.ts';
import { decodeFrames, encodeFrames } from '../codecs/vlen-bytes.ts';
import { defaultFillValue } from '../zarr/fill-value.ts';
import { product } from '../zarr/ndarray.ts';
import type { DataType } from '../zarr/data-types.ts';
import type { ByteOrder, NumpyDataType } from './dtype.ts';
import { decodeUcs4, encodeUcs4 } from './ucs4.ts';

/** A compressor (or bytes filter) as built from the metadata, with its v3 codec when one exists. */
export interface NumpyCompressor {
  readonly codec: BytesToBytesCodec;
  readonly v3?: CodecMetadata;
}

/** The elements a chain of array filters writes: their type and the byte order NumPy stores them in. */
export interface EncodedElement {
  readonly dataType: DataType;
  readonly byteOrder: ByteOrder;
}

export interface NumpyChunkLayout {
  readonly dtype: NumpyDataType;
  readonly order: 'C' | 'F';
  readonly chunks: readonly number[];
  /** Filters with a v3 array -> array form, in encode order (after the transpose). */
  readonly filters?: readonly CodecMetadata[];
  /** What the filters write (numcodecs.ts encodedElement); the dtype's own elements without filters. */
  readonly encoded?: EncodedElement;
  /** Compressors in encode order. */
  readonly compressors: readonly NumpyCompressor[];
}

export interface NumpyChunkCodec {
  /** Every compressor, in encode order: the chain's leading ones, then the `outer` ones. */
  readonly compressors: readonly NumpyCompressor[];
  /** The codecs that run outside the v3 chain, in encode order. */
  readonly outer: readonly BytesToBytesCodec[];
  /** The v3 chain that reads what `decode` returns. */
  readonly v3Codecs: readonly CodecMetadata[];
  /** True when `decode` changes the bytes beyond decompressing (U<n> transcoding). */
  readonly transcodes: boolean;
  /** True when stored chunks are the v3 chain's own bytes (`decode`/`encode` are identities). */
  readonly passThrough: boolean;
  /** Stored chunk -> bytes for `v3Codecs`. */
  decode(stored: Uint8Array): Uint8Array;
  /** Bytes from `v3Codecs` -> the chunk to store. */
  encode(bytes: Uint8Array): Uint8Array;
}

const utf8 = new TextEncoder();
const utf8Strict = new TextDecoder('utf-8', { fatal: true });

export function numpyChunkCodec(layout: NumpyChunkLayout): NumpyChunkCodec {
  const { dtype, order, chunks } = layout;
  const rank = chunks.length;
  // json2 and msgpack2 too: zarr-python 2 reads their items back in the chunk's memory order.
  const transpose: CodecMetadata[] = order === 'F' && rank > 1 ? [{ name: 'transpose', configuration: { order: [...Array(rank).keys()].reverse() } }] : [];
  const filters = layout.filters ?? [];
  // U<n> is transcoded unless a filter (categorize) turns its strings into numbers first.
  const transcodes = dtype.kind === 'unicode' && filters.length === 0;
  // The chain keeps the leading compressors it can express; U<n> transcodes before any of them.
  const inChain = transcodes ? 0 : leadingV3(layout.compressors);
  const chainCompressors = layout.compressors.slice(0, inChain).map((c) => c.v3 as CodecMetadata);
  const outer = layout.compressors.slice(inChain).map((c) => c.codec);
  const compress = (b: Uint8Array): Uint8Array => outer.reduce((bytes, c) => c.encode(bytes), b);
  const arrayToBytes = transcodes ? { name: 'vlen-utf8' } : filters.length > 0 ? elementBytesCodec(layout.encoded) : dtypeBytesCodec(dtype);
  const v3Codecs = [...transpose, ...filters, arrayToBytes, ...chainCompressors];
  const bounds = outerBounds(outer, transcodes ? () => product(chunks) * dtype.itemSize : chainInputBound(v3Codecs, layout, outer.length > 0));
  const decompress = (b: Uint8Array): Uint8Array => outer.reduceRight((bytes, c, i) => c.decode(bytes, bounds(i)), b);
  const { compressors } = layout;
  if (!transcodes) return { compressors, outer, v3Codecs, transcodes, passThrough: outer.length === 0, decode: decompress, encode: compress };
  const n = product(chunks);
  const chars = dtype.itemSize / 4;
  const little = dtype.byteOrder === 'little';
  return {
    compressors,
    outer,
    v3Codecs,
    transcodes,
    passThrough: false,
    decode: (stored) => encodeFrames(decodeUcs4(decompress(stored), n, chars, little).map((s) => utf8.encode(s))),
    encode: (bytes) => compress(encodeUcs4(decodeFrames(bytes, n, 'vlen-utf8').map((b) => decodeUtf8(b)), chars, little)),
  };
}

/** The most bytes the v3 chain of `v3Codecs` reads for one chunk (it follows configureLimits). */
function chainInputBound(v3Codecs: readonly CodecMetadata[], layout: NumpyChunkLayout, needed: boolean): () => number {
  if (!needed) return () => 0; // no codec outside the chain to bound
  const dataType = layout.dtype.dataType;
  const chain = buildCodecChain(v3Codecs, { shape: layout.chunks, dataType, fillValue: defaultFillValue(dataType) });
  return () => chain.encodedSizeBound();
}

/**
 * The DecodeLimits of each outer codec by its index: outer[0] (the last to decode) produces what
 * the chain reads, at most `innermost()`; outer[i] what outer[i - 1] may write for that. Worked
 * out once per innermost bound (it changes only with configureLimits).
 */
function outerBounds(outer: readonly BytesToBytesCodec[], innermost: () => number): (i: number) => DecodeLimits {
  let basis = -1;
  let limits: DecodeLimits[] = [];
  return (i) => {
    const bound = innermost();
    if (bound !== basis) {
      basis = bound;
      let size = bound;
      limits = outer.map((codec) => {
        const at: DecodeLimits = Object.freeze({ maxBytes: size });
        size = codec.computeEncodedSize?.(size) ?? compressedBound(size);
        return at;
      });
    }
    return limits[i] ?? { maxBytes: bound };
  };
}

function leadingV3(compressors: readonly NumpyCompressor[]): number {
  const first = compressors.findIndex((c) => c.v3 === undefined);
  return first === -1 ? compressors.length : first;
}

/** The v3 `bytes` codec that lays out elements of `dtype` as NumPy stores them. */
export function bytesCodecFor(dtype: NumpyDataType): CodecMetadata {
  if ((dtype.kind === 'numeric' || dtype.kind === 'datetime') && dtype.byteOrder !== 'none') {
    return { name: 'bytes', configuration: { endian: dtype.byteOrder } };
  }
  return { name: 'bytes' };
}

/** The array -> bytes codec of an unfiltered dtype: its object codec, or bytes. */
function dtypeBytesCodec(dtype: NumpyDataType): CodecMetadata {
  if (dtype.kind !== 'object') return bytesCodecFor(dtype);
  switch (dtype.objectCodec) {
    case 'vlen-utf8':
      return { name: 'vlen-utf8' };
    case 'vlen-bytes':
    case 'vlen-array': // the same frames; each element's bytes as stored
      return { name: 'vlen-bytes' };
    case 'json2':
    case 'msgpack2':
      return { name: `numcodecs.${dtype.objectCodec}`, configuration: { ...dtype.objectConfig } };
    case 'categorize': // a filter: it comes with filters, never here
      throw floeError('INVALID_METADATA', 'an object array whose first filter is categorize lost its filter');
  }
}

/** `bytes` for what the filters write, in the byte order NumPy stored it in. */
function elementBytesCodec(encoded: EncodedElement | undefined): CodecMetadata {
  if (!encoded) throw floeError('INVALID_METADATA', 'filters without the element type they write');
  return encoded.dataType.itemSize > 1 && encoded.byteOrder !== 'none' ? { name: 'bytes', configuration: { endian: encoded.byteOrder } } : { name: 'bytes' };
}

function decodeUtf8(b: Uint8Array): string {
  try {
    return utf8Strict.decode(b);
  } catch (cause) {
    throw floeError('INVALID_ARGUMENT', 'string element is not valid UTF-8', { cause });
  }
}

/** Runs a chunk transform, naming the key in any error (a truncated zlib stream, a short chunk). */
export function atKey<T>(key: string, fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    if (isFloeError(err)) throw err.where ? err : floeError(err.code, err.message, { where: key, cause: err, details: err.details });
    throw floeError('CORRUPT_OBJECT', `chunk could not be decoded: ${(err as Error).message}`, { where: key, cause: err });
  }
}
