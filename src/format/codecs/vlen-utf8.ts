// `vlen-utf8` (zarr-python 3's string codec): u32le count, then for each element u32le byte
// length + UTF-8 bytes, in C order. The framing is shared with `vlen-bytes`.
import type { ArrayToBytesCodec } from './array-codecs.ts';
import { framedCodec } from './vlen-bytes.ts';

export function vlenUtf8Codec(): ArrayToBytesCodec {
  return framedCodec('vlen-utf8');
}
