// Node's own zstd: node:zlib's zstdCompressSync/zstdDecompressSync (Node 22.15+ and 23.8+; the
// `dictionary` option came later). Found by trying it, never by version number: a small frame is
// compressed and decompressed at load, and dictionaries are tried on their own, since a Node that
// does not know the option silently ignores it. The sync forms: every zstd user in Floe is
// synchronous (worker threads give the parallelism), and the async ones would add a thread hop.
//
// Two of its habits are evened out here, so that every backend refuses the same input: Node 22
// decodes only the first of several concatenated frames and returns a truncated frame's output
// without an error. So input is split into frames here (zstd-frames.ts walks their block headers,
// which finds truncation) and each frame decoded alone.
import { bytesEqual, joinBytes } from '../bytes.ts';
import { readFrame, ZstdDataError } from './zstd-frames.ts';
import { DecodedSizeLimitError } from './decoded-size.ts';
import type { ZstdBackend } from './zstd-types.ts';

// @types/node stays at the oldest supported line (20), which has no zstd in node:zlib: the slice
// used here is declared here, so that any other newer API still fails the type check.
interface ZstdOptions {
  params?: Record<number, number>;
  pledgedSrcSize?: number;
  maxOutputLength?: number;
  chunkSize?: number;
  dictionary?: Uint8Array;
}
interface ZlibWithZstd {
  zstdCompressSync?(data: Uint8Array, options?: ZstdOptions): Uint8Array;
  zstdDecompressSync?(data: Uint8Array, options?: ZstdOptions): Uint8Array;
  constants: { ZSTD_c_compressionLevel?: number; ZSTD_c_checksumFlag?: number };
}
type ZstdZlib = Required<Pick<ZlibWithZstd, 'zstdCompressSync' | 'zstdDecompressSync'>> & { level: number; checksum: number };

/** Node's zlib chunks are at least this long (Z_MIN_CHUNK). */
const MIN_CHUNK = 64;
/** Output chunk of an unsized decode: Node grows by whole chunks and joins them at the end. */
const UNSIZED_CHUNK = 1 << 20;

export interface ZlibBackendOptions {
  /** Does dictionary work when this Node's zlib cannot (loaded on the first dictionary call). */
  dictionaryHelper: () => ZstdBackend;
}

/** Node's zstd, or throws saying what this Node lacks. */
export function zlibBackend(require: NodeJS.Require, options: ZlibBackendOptions): ZstdBackend & { readonly dictionaries: 'node:zlib' | 'helper' } {
  const zstd = probe(require('node:zlib') as ZlibWithZstd);
  const maxOutput = (require('node:buffer') as { constants: { MAX_LENGTH: number } }).constants.MAX_LENGTH;
  const dictionaries = dictionariesWork(zstd);
  let helper: ZstdBackend | undefined;
  const forDictionary = (): ZstdBackend => (helper ??= options.dictionaryHelper());

  return {
    name: 'node:zlib',
    version: `node ${process.version}${process.versions['zstd'] ? `, libzstd ${process.versions['zstd']}` : ''}`,
    dictionaries: dictionaries ? 'node:zlib' : 'helper',
    compress(data, level, checksum, dictionary) {
      if (dictionary && !dictionaries) return forDictionary().compress(data, level, checksum, dictionary);
      return plain(zstd.zstdCompressSync(data, compressOptions(zstd, data.length, level, checksum, dictionary)));
    },
    decompressInto(data, out, dictionary) {
      if (dictionary && !dictionaries) return forDictionary().decompressInto(data, out, dictionary);
      let written = 0;
      for (const frame of frames(data)) {
        const room = out.length - written;
        const chunkSize = Math.max(MIN_CHUNK, (frame.contentSize ?? room) + 1); // +1: a full chunk makes Node allocate another
        const decoded = decodeFrame(zstd, frame.bytes, Math.min(room, maxOutput), chunkSize, dictionary);
        if (decoded === null) throw new ZstdDataError('corrupt', `the frames decode to more than the ${out.length} bytes expected`);
        out.set(decoded, written);
        written += decoded.length;
      }
      return written;
    },
    decompressUnsized(data, maxBytes, dictionary) {
      if (dictionary && !dictionaries) return forDictionary().decompressUnsized(data, maxBytes, dictionary);
      const parts: Uint8Array[] = [];
      let total = 0;
      for (const frame of frames(data)) {
        const room = maxBytes - total;
        const chunkSize = Math.max(MIN_CHUNK, Math.min(frame.contentSize ?? UNSIZED_CHUNK, room) + 1);
        const decoded = decodeFrame(zstd, frame.bytes, Math.min(room, maxOutput), chunkSize, dictionary);
        if (decoded === null) throw new DecodedSizeLimitError(maxBytes);
        parts.push(decoded);
        total += decoded.length;
      }
      return parts.length === 1 ? parts[0]! : joinBytes(parts, total);
    },
  };
}

/** node:zlib's zstd when it is there and round-trips a frame that states its size; else throws. */
function probe(zlib: ZlibWithZstd): ZstdZlib {
  const { zstdCompressSync, zstdDecompressSync } = zlib;
  const { ZSTD_c_compressionLevel: level, ZSTD_c_checksumFlag: checksum } = zlib.constants;
  if (!zstdCompressSync || !zstdDecompressSync || level === undefined || checksum === undefined) {
    throw new Error(`node:zlib has no zstd in Node ${process.version}`);
  }
  const zstd = { zstdCompressSync, zstdDecompressSync, level, checksum };
  const sample = new TextEncoder().encode('floe probes node:zlib zstd '.repeat(8));
  const frame = zstd.zstdCompressSync(sample, compressOptions(zstd, sample.length, 3, true));
  const info = readFrame(frame);
  if (info.contentSize !== sample.length || info.compressedSize !== frame.length) throw new Error('node:zlib zstd does not write the content size into the frame header');
  if (!bytesEqual(zstd.zstdDecompressSync(frame), sample)) throw new Error('node:zlib zstd does not round-trip a frame');
  return zstd;
}

/**
 * Whether the `dictionary` option works both ways: a frame made with it must decode with it and
 * fail without it (a Node that does not know the option ignores it and the frame decodes plain).
 */
function dictionariesWork(zstd: ZstdZlib): boolean {
  const dictionary = new TextEncoder().encode('s3://bucket/path/to/some/file-0001.nc s3://bucket/path/to/some/file-0002.nc');
  const text = new TextEncoder().encode('s3://bucket/path/to/some/file-0003.nc');
  try {
    const frame = zstd.zstdCompressSync(text, compressOptions(zstd, text.length, 3, false, dictionary));
    if (!bytesEqual(zstd.zstdDecompressSync(frame, { dictionary }), text)) return false;
  } catch {
    return false;
  }
  try {
    zstd.zstdDecompressSync(zstd.zstdCompressSync(text, compressOptions(zstd, text.length, 3, false, dictionary)));
    return false;
  } catch {
    return true;
  }
}

function compressOptions(zstd: ZstdZlib, size: number, level: number, checksum: boolean, dictionary?: Uint8Array): ZstdOptions {
  const options: ZstdOptions = { params: { [zstd.level]: level, [zstd.checksum]: checksum ? 1 : 0 }, pledgedSrcSize: size };
  if (dictionary) options.dictionary = dictionary;
  return options;
}

/** One frame's output, or null past `room` bytes. */
function decodeFrame(zstd: ZstdZlib, frame: Uint8Array, room: number, chunkSize: number, dictionary?: Uint8Array): Uint8Array | null {
  if (frame.length === 0) return new Uint8Array(0);
  const options: ZstdOptions = { maxOutputLength: Math.max(1, room), chunkSize };
  if (dictionary) options.dictionary = dictionary;
  let out: Uint8Array;
  try {
    out = zstd.zstdDecompressSync(frame, options);
  } catch (err) {
    if ((err as { code?: unknown }).code === 'ERR_BUFFER_TOO_LARGE') return null;
    throw err;
  }
  return out.length > room ? null : plain(out);
}

/** The input's zstd frames, each with its stated size; skippable frames come out empty. */
function* frames(data: Uint8Array): Generator<{ bytes: Uint8Array; contentSize: number | null }> {
  for (let rest = data; rest.length > 0; ) {
    const info = readFrame(rest);
    yield { bytes: info.skippable ? new Uint8Array(0) : rest.subarray(0, info.compressedSize), contentSize: info.contentSize };
    rest = rest.subarray(info.compressedSize);
  }
}

/** A Buffer as a plain Uint8Array over the same memory, the type the other backends return. */
function plain(bytes: Uint8Array): Uint8Array {
  return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.length);
}

