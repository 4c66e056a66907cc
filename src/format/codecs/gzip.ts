// Zarr v3 `gzip` codec (RFC 1952 gzip members), configuration {level: 0-9}.
// node:zlib's synchronous API decodes ~2.6x faster than fflate here; every Node >= 20 has it,
// so there is no pure-JS fallback.
import { gunzipSync, gzipSync } from 'node:zlib';
import type { BytesCodecFactory, BytesToBytesCodec } from './types.ts';
import { checkKeys, decodingGuard, readInt } from './bytes-codec-support.ts';

const NAME = 'gzip';

export const gzipCodec: BytesCodecFactory = (configuration): BytesToBytesCodec => {
  checkKeys(NAME, configuration, ['level']);
  const level = readInt(NAME, configuration, 'level', 0, 9);
  return {
    kind: 'bytes_to_bytes',
    name: NAME,
    encode: (data) => gzipSync(data, { level }),
    decode: (data) => decodingGuard(NAME, () => gunzipSync(data)),
    toJSON: () => ({ name: NAME, configuration: { level } }),
  };
};
