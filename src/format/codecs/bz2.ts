// Zarr v1 `bz2` compressor: compression_opts is the level 1-9 (block size in 100 kB units;
// null means 9). Decoding by seek-bzip (MIT, pure JS, checks block and stream CRCs); encoding
// by our own bz2-encoder.ts, since the only JS encoders found are GPL-licensed.
import type { BytesCodecImplementation } from './codec-implementation.ts';
import type { BytesToBytesCodec, DecodeLimits } from './types.ts';
import { corrupt, decodedTooLarge, decodingGuard, invalidConfig, shown } from './bytes-codec-support.ts';
import { bz2Compress } from './bz2-encoder.ts';
import { loadPackage } from '../../optional-dependency.ts';

const NAME = 'bz2';

// seek-bzip is CommonJS without type declarations; this is the part of it we use. `output` may
// be an object with writeByte/getBuffer (seek-bzip writes every decoded byte through writeByte).
interface SeekBzip {
  decode(input: Buffer, output?: Buffer | BoundedOutput): Buffer;
}
// Required on the first bz2 decode, not on `import 'floe'`: the package costs ~97 KB of heap.
let seekBzipModule: SeekBzip | undefined;
function seekBzip(): SeekBzip {
  seekBzipModule ??= loadPackage<SeekBzip>('seek-bzip');
  return seekBzipModule;
}

export function bz2Compressor(compressionOpts: unknown): BytesToBytesCodec {
  const level = readLevel(compressionOpts);
  return {
    kind: 'bytes_to_bytes',
    name: NAME,
    encode: (data) => bz2Compress(data, level),
    decode: (data, limits) =>
      decodingGuard(NAME, () => {
        if (data.length < 4) throw corrupt(NAME, 'the input is shorter than a bzip2 header');
        const input = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
        return limits === undefined ? seekBzip().decode(input) : seekBzip().decode(input, new BoundedOutput(limits));
      }),
    toJSON: () => ({ name: NAME, configuration: { level } }),
  };
}

/**
 * seek-bzip's output sink, refusing the first byte past maxBytes. seek-bzip emits a block's bytes
 * one at a time as it undoes the BWT and run-length steps, so a bomb (a 900 kB block of runs can
 * decode to ~45 MB, and a stream holds any number of blocks) stops within one byte of the limit,
 * never allocating more than the limit.
 */
class BoundedOutput {
  private buffer: Buffer;
  private pos = 0;
  private readonly maxBytes: number;

  constructor(limits: DecodeLimits) {
    this.maxBytes = limits.maxBytes;
    this.buffer = Buffer.allocUnsafe(Math.max(1, Math.min(16384, this.maxBytes)));
  }

  writeByte(byte: number): void {
    if (this.pos >= this.maxBytes) {
      throw decodedTooLarge(NAME, this.maxBytes);
    }
    if (this.pos >= this.buffer.length) {
      // Doubling, but never past the limit: a larger buffer could never be filled.
      const grown = Buffer.allocUnsafe(Math.min(this.buffer.length * 2, this.maxBytes));
      this.buffer.copy(grown, 0, 0, this.pos);
      this.buffer = grown;
    }
    this.buffer[this.pos++] = byte;
  }

  getBuffer(): Buffer {
    return this.buffer.subarray(0, this.pos);
  }
}

export const bz2Entry: BytesCodecImplementation = {
  name: NAME,
  kind: 'bytes_to_bytes',
  capabilities: {
    levels: { key: 'level', min: 1, max: 9, default: 9, outside: 'reject' },
    decodeInto: false,
    boundedDecode: true,
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
