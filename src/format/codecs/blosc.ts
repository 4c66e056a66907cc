// Zarr v3 `blosc` codec and the Zarr v1 `blosc` compressor: Blosc1 buffers, decoded and encoded
// in TypeScript (blosclz, lz4 and snappy streams here; zlib via node:zlib, zstd via zstd-backend.ts).
// Decoding reads any Blosc1 buffer whatever the configuration says: the header is authoritative.
import type { BytesCodecImplementation } from './codec-implementation.ts';
import type { BytesCodecContext, BytesCodecFactory, BytesToBytesCodec } from './types.ts';
import { checkKeys, decodingGuard, invalidConfig, readChoice, readInt, shown } from './bytes-codec-support.ts';
import { BLOSC_CNAMES, type BloscCname } from './blosc/block-codecs.ts';
import { bloscCompress, type BloscOptions, type BloscShuffle } from './blosc/compress.ts';
import { bloscDecompress, bloscDecompressInto, bloscDecompressIntoRuns } from './blosc/container.ts';

const NAME = 'blosc';
const SHUFFLES = ['noshuffle', 'shuffle', 'bitshuffle'] as const;

function bloscCodec(options: BloscOptions, toJSON: BytesToBytesCodec['toJSON']): BytesToBytesCodec {
  return {
    kind: 'bytes_to_bytes',
    name: NAME,
    encode: (data) => bloscCompress(data, options),
    decode: (data, limits) => decodingGuard(NAME, () => bloscDecompress(data, limits?.maxBytes)),
    decodeInto: (data, out) => decodingGuard(NAME, () => bloscDecompressInto(data, out)),
    decodeIntoRuns: (data, runs) => decodingGuard(NAME, () => bloscDecompressIntoRuns(data, runs)),
    toJSON,
  };
}

/** Zarr v3: {cname, clevel, shuffle: "noshuffle"|"shuffle"|"bitshuffle", typesize, blocksize}. */
export const bloscV3Codec: BytesCodecFactory = (configuration, context): BytesToBytesCodec => {
  checkKeys(NAME, configuration, ['cname', 'clevel', 'shuffle', 'typesize', 'blocksize']);
  const cname = readChoice(NAME, configuration, 'cname', BLOSC_CNAMES, 'zstd');
  const clevel = readInt(NAME, configuration, 'clevel', 0, 9, 5);
  const shuffle = readChoice(NAME, configuration, 'shuffle', SHUFFLES, 'noshuffle');
  const typesize = readInt(NAME, configuration, 'typesize', 1, 2 ** 31 - 1, defaultTypesize(context));
  const blocksize = readInt(NAME, configuration, 'blocksize', 0, 2 ** 31 - 1, 0);
  const options: BloscOptions = { cname, clevel, shuffle: SHUFFLES.indexOf(shuffle) as BloscShuffle, typesize, blocksize };
  return bloscCodec(options, () => ({ name: NAME, configuration: { cname, clevel, shuffle, typesize, blocksize } }));
};

/** Zarr v1 compression_opts: {cname, clevel, shuffle: 0|1|2, blocksize?}; zarr v1's defaults. */
export function bloscV1Compressor(compressionOpts: unknown, context: BytesCodecContext): BytesToBytesCodec {
  if (compressionOpts !== null && compressionOpts !== undefined && (typeof compressionOpts !== 'object' || Array.isArray(compressionOpts))) {
    throw invalidConfig(NAME, `compression_opts must be an object, got ${shown(compressionOpts)}`);
  }
  const opts = (compressionOpts ?? {}) as Record<string, unknown>;
  checkKeys(NAME, opts, ['cname', 'clevel', 'shuffle', 'blocksize', 'id', 'typesize']);
  const cname: BloscCname = readChoice(NAME, opts, 'cname', BLOSC_CNAMES, 'blosclz');
  const clevel = readInt(NAME, opts, 'clevel', 0, 9, 5);
  // numcodecs' AUTOSHUFFLE (-1): bit shuffle for 1-byte types, byte shuffle otherwise.
  const rawShuffle = readInt(NAME, opts, 'shuffle', -1, 2, 1);
  const typesize = readInt(NAME, opts, 'typesize', 1, 2 ** 31 - 1, defaultTypesize(context));
  const shuffle = (rawShuffle === -1 ? (typesize === 1 ? 2 : 1) : rawShuffle) as BloscShuffle;
  const blocksize = readInt(NAME, opts, 'blocksize', 0, 2 ** 31 - 1, 0);
  const options: BloscOptions = { cname, clevel, shuffle, typesize, blocksize };
  return bloscCodec(options, () => ({ name: NAME, configuration: { cname, clevel, shuffle, blocksize } }));
}

/** One implementation, two configurations: v3's named shuffles and v1's numeric ones. */
export const bloscEntry: BytesCodecImplementation = {
  name: NAME,
  kind: 'bytes_to_bytes',
  capabilities: {
    levels: { key: 'clevel', min: 0, max: 9, default: 5, outside: 'reject' },
    decodeInto: true,
    boundedDecode: true,
    partialDecode: false,
    fixedEncodedSize: false,
  },
  zarrV3: bloscV3Codec,
  zarrV1: { names: [NAME], create: (opts, context) => bloscV1Compressor(opts, context) },
};

function defaultTypesize(context: BytesCodecContext | undefined): number {
  const size = context?.itemSize;
  return size !== undefined && Number.isInteger(size) && size >= 1 ? size : 1;
}
