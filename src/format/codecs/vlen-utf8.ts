// `vlen-utf8` (zarr-python 3's string codec): u32le count, then for each element u32le byte
// length + UTF-8 bytes, in C order. The framing is shared with `vlen-bytes`.
import { floeError } from '../../errors.ts';
import type { ArrayToBytesCodec } from './array-codecs.ts';
import { PLAIN_CAPABILITIES, type ArrayCodecImplementation } from './codec-implementation.ts';
import { framedCodec } from './vlen-bytes.ts';

export function vlenUtf8Codec(): ArrayToBytesCodec {
  return framedCodec('vlen-utf8');
}

export const vlenUtf8Entry: ArrayCodecImplementation = {
  name: 'vlen-utf8',
  kind: 'array_to_bytes',
  capabilities: PLAIN_CAPABILITIES,
  zarrV3: (_configuration, { spec }) => {
    if (spec.dataType.kind !== 'string') throw floeError('INVALID_METADATA', `vlen-utf8 encodes strings, not ${spec.dataType.name}`);
    return vlenUtf8Codec();
  },
};
