// Decoded-size checks of the numcodecs codecs whose output size is known before decoding (the
// shuffle's is its input's, a checksum's its payload's, LZ4's the size its header states): the
// check comes first, so a bomb is refused before anything is allocated.
import { decodedTooLarge } from '../bytes-codec-support.ts';
import type { DecodeLimits } from '../types.ts';

/** `data` itself when `decodedSize` is within the limit; LIMIT_EXCEEDED naming `codec` otherwise. */
export function boundedPassThrough(codec: string, data: Uint8Array, decodedSize: number, limits: DecodeLimits | undefined): Uint8Array {
  if (limits !== undefined && decodedSize > limits.maxBytes) throw decodedTooLarge(codec, limits.maxBytes, decodedSize);
  return data;
}
