// numcodecs' 32-bit checksum codecs: the payload with a 4-byte little-endian checksum, at the
// start (crc32, adler32: numcodecs' default, and 0.11's only layout) or at the end (fletcher32,
// jenkins_lookup3, and crc32/adler32 with "location": "end"). Decoding checks it and returns a
// view of the payload.
import { floeError } from '../../../errors.ts';
import { checkKeys, corrupt, readChoice } from '../bytes-codec-support.ts';
import type { BytesCodecImplementation } from '../codec-implementation.ts';
import type { BytesToBytesCodec, CodecMetadata, DecodeLimits } from '../types.ts';
import { adler32 } from './adler32.ts';
import { boundedPassThrough } from './bounds.ts';
import { crc32 } from './crc32.ts';
import { fletcher32 } from './fletcher32.ts';

const BYTES = 4;
export type ChecksumLocation = 'start' | 'end';

export function checksumCodec(name: string, checksum: (payload: Uint8Array) => number, location: ChecksumLocation, json: CodecMetadata): BytesToBytesCodec {
  const payloadAt = location === 'start' ? BYTES : 0;
  return {
    kind: 'bytes_to_bytes',
    name,
    encode(data) {
      const out = new Uint8Array(data.length + BYTES);
      out.set(data, payloadAt);
      new DataView(out.buffer).setUint32(location === 'start' ? 0 : data.length, checksum(data) >>> 0, true);
      return out;
    },
    decode(data: Uint8Array, limits?: DecodeLimits) {
      if (data.length < BYTES) throw corrupt(name, `${data.length} bytes is shorter than the 4-byte checksum`);
      const payload = boundedPassThrough(name, data.subarray(payloadAt, payloadAt + data.length - BYTES), data.length - BYTES, limits);
      const stored = new DataView(data.buffer, data.byteOffset, data.byteLength).getUint32(location === 'start' ? 0 : payload.length, true);
      const actual = checksum(payload) >>> 0;
      if (stored !== actual) {
        throw floeError('CHECKSUM_MISMATCH', `${name}: stored checksum ${hex(stored)} does not match computed ${hex(actual)}; the chunk is corrupted, restore it from a good copy`, {
          details: { codec: name, stored, actual },
        });
      }
      return payload;
    },
    computeEncodedSize: (n) => n + BYTES,
    toJSON: () => json,
  };
}

function hex(n: number): string {
  return `0x${n.toString(16).padStart(8, '0')}`;
}

const CAPABILITIES = { decodeInto: false, boundedDecode: true, partialDecode: false, fixedEncodedSize: true } as const;

/** crc32 and adler32: the checksum at "start" unless "location" says "end". */
function locatedEntry(id: string, checksum: (payload: Uint8Array) => number): BytesCodecImplementation {
  const name = `numcodecs.${id}`;
  return {
    name,
    kind: 'bytes_to_bytes',
    capabilities: CAPABILITIES,
    zarrV3: (configuration) => {
      checkKeys(name, configuration, ['location']);
      const location = readChoice<ChecksumLocation>(name, configuration, 'location', ['start', 'end'], 'start');
      return checksumCodec(name, checksum, location, { name, configuration: { ...configuration } });
    },
  };
}

export const crc32Entry = locatedEntry('crc32', crc32);
export const adler32Entry = locatedEntry('adler32', adler32);

export const fletcher32Entry: BytesCodecImplementation = {
  name: 'numcodecs.fletcher32',
  kind: 'bytes_to_bytes',
  capabilities: CAPABILITIES,
  zarrV3: (configuration) => {
    checkKeys('numcodecs.fletcher32', configuration, []);
    return checksumCodec('numcodecs.fletcher32', fletcher32, 'end', { name: 'numcodecs.fletcher32', configuration: {} });
  },
};
