// Zarr v3 `gzip` codec (RFC 1952 gzip members), configuration {level: 0-9}. The streams come from
// deflate-backend.ts: node:zlib where the runtime has it, fflate elsewhere; both write and read
// the same standard gzip, so either can read what the other wrote.
import type { BytesCodecImplementation } from './codec-implementation.ts';
import type { BytesCodecFactory, BytesToBytesCodec } from './types.ts';
import { checkKeys, decodingGuard, decodingGuardAsync, readInt } from './bytes-codec-support.ts';
import { deflateBackend, type DeflateBackend } from './deflate-backend.ts';

const NAME = 'gzip';

/** The gzip codec over a given backend (tests pass fflate to exercise the fallback). */
export function gzipCodecOn(backend: DeflateBackend): BytesCodecFactory {
  return (configuration): BytesToBytesCodec => {
    checkKeys(NAME, configuration, ['level']);
    const level = readInt(NAME, configuration, 'level', 0, 9);
    const gunzipAsync = backend.gunzipAsync?.bind(backend);
    return {
      kind: 'bytes_to_bytes',
      name: NAME,
      encode: (data) => backend.gzip(data, level),
      decode: (data, limits) => decodingGuard(NAME, () => backend.gunzip(data, limits?.maxBytes)),
      ...(gunzipAsync && { decodeAsync: (data, limits) => decodingGuardAsync(NAME, () => gunzipAsync(data, limits?.maxBytes)) }),
      toJSON: () => ({ name: NAME, configuration: { level } }),
    };
  };
}

export const gzipCodec: BytesCodecFactory = gzipCodecOn(deflateBackend);

export const gzipEntry: BytesCodecImplementation = {
  name: NAME,
  kind: 'bytes_to_bytes',
  capabilities: {
    levels: { key: 'level', min: 0, max: 9, default: undefined, outside: 'reject' },
    decodeInto: false,
    boundedDecode: true,
    partialDecode: false,
    fixedEncodedSize: false,
  },
  zarrV3: gzipCodec,
};
