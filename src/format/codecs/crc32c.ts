// Zarr v3 `crc32c` codec: appends the CRC32C (Castagnoli) of the bytes, 4 bytes little-endian,
// and checks it on decode. @node-rs/crc32 runs at ~7 GB/s here (hardware instruction); where its
// per-platform binary is not installed, a plain-JS CRC-32C takes over (crc32c-js.ts).
import type * as NodeRsCrc32 from '@node-rs/crc32';
import { floeError } from '../../errors.ts';
import { crc32cJs } from './crc32c-js.ts';
import type { BytesCodecImplementation } from './codec-implementation.ts';
import type { BytesCodecFactory, BytesToBytesCodec, DecodeLimits } from './types.ts';
import { checkKeys, corrupt, decodedTooLarge } from './bytes-codec-support.ts';
import { hostEnv } from '../../platform/host.ts';
import { loadPackage } from '../../optional-dependency.ts';

const NAME = 'crc32c';
const crc32cOf: (data: Uint8Array) => number = loadNative() ?? crc32cJs;

/** Which CRC-32C implementation is in use: the native one when it loads, else plain JS. */
export const crc32cImplementation: 'native' | 'js' = crc32cOf === crc32cJs ? 'js' : 'native';

function loadNative(): ((data: Uint8Array) => number) | undefined {
  if (hostEnv('FLOE_CRC32C') === 'js') return undefined; // tests exercise the fallback
  try {
    return loadPackage<typeof NodeRsCrc32>('@node-rs/crc32').crc32c;
  } catch {
    return undefined;
  }
}
const CHECKSUM_BYTES = 4;

export function crc32cEncode(data: Uint8Array): Uint8Array {
  const out = new Uint8Array(data.length + CHECKSUM_BYTES);
  out.set(data, 0);
  new DataView(out.buffer).setUint32(data.length, crc32cOf(data) >>> 0, true);
  return out;
}

/** Returns a view of `data` without its checksum (no copy). */
export function crc32cDecode(data: Uint8Array, limits?: DecodeLimits): Uint8Array {
  if (data.length < CHECKSUM_BYTES) throw corrupt(NAME, `${data.length} bytes is shorter than the 4-byte checksum`);
  const payload = data.subarray(0, data.length - CHECKSUM_BYTES);
  if (limits && payload.length > limits.maxBytes) throw decodedTooLarge(NAME, limits.maxBytes, payload.length);
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const stored = view.getUint32(payload.length, true);
  const actual = crc32cOf(payload) >>> 0;
  if (stored !== actual) {
    throw floeError(
      'CHECKSUM_MISMATCH',
      `crc32c: stored checksum ${hex(stored)} does not match computed ${hex(actual)}; the chunk is corrupted, restore it from a good copy`,
      { details: { codec: NAME, stored, actual } },
    );
  }
  return payload;
}

function hex(n: number): string {
  return `0x${n.toString(16).padStart(8, '0')}`;
}

export const crc32cCodec: BytesCodecFactory = (configuration): BytesToBytesCodec => {
  checkKeys(NAME, configuration, []);
  return {
    kind: 'bytes_to_bytes',
    name: NAME,
    encode: crc32cEncode,
    decode: crc32cDecode,
    computeEncodedSize: (n) => n + CHECKSUM_BYTES,
    toJSON: () => ({ name: NAME }),
  };
};

export const crc32cEntry: BytesCodecImplementation = {
  name: NAME,
  kind: 'bytes_to_bytes',
  capabilities: { decodeInto: false, boundedDecode: true, partialDecode: false, fixedEncodedSize: true },
  zarrV3: crc32cCodec,
};
