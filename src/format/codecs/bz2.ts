// Zarr v1 `bz2` compressor: compression_opts is the level 1-9 (block size in 100 kB units;
// null means 9). Decoding by seek-bzip (MIT, pure JS, checks block and stream CRCs); encoding
// by our own bz2-encoder.ts, since the only JS encoders found are GPL-licensed.
import type { BytesCodecImplementation } from './codec-implementation.ts';
import type { BytesToBytesCodec } from './types.ts';
import { corrupt, decodedTooLarge, decodingGuard, invalidConfig, shown } from './bytes-codec-support.ts';
import { bz2Compress } from './bz2-encoder.ts';
import { seekBzip } from './seek-bzip-host.ts';

const NAME = 'bz2';

export function bz2Compressor(compressionOpts: unknown): BytesToBytesCodec {
  const level = readLevel(compressionOpts);
  return {
    kind: 'bytes_to_bytes',
    name: NAME,
    encode: (data) => bz2Compress(data, level),
    decode: (data, limits) =>
      decodingGuard(NAME, () => {
        if (data.length < 4) throw corrupt(NAME, 'the input is shorter than a bzip2 header');
        return seekBzip().decode(data, new BoundedOutput(limits?.maxBytes ?? Number.MAX_SAFE_INTEGER));
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
  private buffer: Uint8Array;
  private pos = 0;
  private readonly maxBytes: number;

  constructor(maxBytes: number) {
    this.maxBytes = maxBytes;
    this.buffer = new Uint8Array(Math.max(1, Math.min(16384, maxBytes)));
  }

  writeByte(byte: number): void {
    if (this.pos >= this.maxBytes) {
      throw decodedTooLarge(NAME, this.maxBytes);
    }
    if (this.pos >= this.buffer.length) {
      // Doubling, but never past the limit: a larger buffer could never be filled.
      const grown = new Uint8Array(Math.min(this.buffer.length * 2, this.maxBytes));
      grown.set(this.buffer.subarray(0, this.pos));
      this.buffer = grown;
    }
    this.buffer[this.pos++] = byte;
  }

  getBuffer(): Uint8Array {
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
