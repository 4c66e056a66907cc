// Zarr v1 `bz2` compressor: compression_opts is the level 1-9 (block size in 100 kB units;
// null means 9). Decoding by seek-bzip (MIT, pure JS, checks block and stream CRCs); encoding
// by our own bz2-encoder.ts, since the only JS encoders found are GPL-licensed.
import { createRequire } from 'node:module';
import type { BytesCodecImplementation } from './codec-implementation.ts';
import type { BytesToBytesCodec } from './types.ts';
import { corrupt, decodingGuard, invalidConfig, shown } from './bytes-codec-support.ts';
import { bz2Compress } from './bz2-encoder.ts';

const NAME = 'bz2';

// seek-bzip is CommonJS without type declarations; this is the part of it we use.
interface SeekBzip {
  decode(input: Buffer, output?: Buffer): Buffer;
}
const seekBzip = createRequire(import.meta.url)('seek-bzip') as SeekBzip;

export function bz2Compressor(compressionOpts: unknown): BytesToBytesCodec {
  const level = readLevel(compressionOpts);
  return {
    kind: 'bytes_to_bytes',
    name: NAME,
    encode: (data) => bz2Compress(data, level),
    decode: (data) =>
      decodingGuard(NAME, () => {
        if (data.length < 4) throw corrupt(NAME, 'the input is shorter than a bzip2 header');
        return seekBzip.decode(Buffer.from(data.buffer, data.byteOffset, data.byteLength));
      }),
    toJSON: () => ({ name: NAME, configuration: { level } }),
  };
}

export const bz2Entry: BytesCodecImplementation = {
  name: NAME,
  kind: 'bytes_to_bytes',
  capabilities: {
    levels: { key: 'level', min: 1, max: 9, default: 9, outside: 'reject' },
    decodeInto: false,
    boundedDecode: false,
    partialDecode: false,
    fixedEncodedSize: false,
  },
  zarrV1: { names: [NAME], create: (opts) => bz2Compressor(opts) },
};

function readLevel(opts: unknown): number {
  if (opts === undefined || opts === null) return 9;
  const value = typeof opts === 'object' && !Array.isArray(opts) ? (opts as Record<string, unknown>).level : opts;
  if (value === undefined || value === null) return 9;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > 9) {
    throw invalidConfig(NAME, `compression_opts must be an integer level in [1, 9], got ${shown(opts)}`);
  }
  return value;
}
