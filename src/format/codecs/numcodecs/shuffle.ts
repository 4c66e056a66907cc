// `numcodecs.shuffle` (numcodecs' Shuffle): byte j of element i moves to j * n + i, for elements
// of `elementsize` bytes (numcodecs' default 4; zarr-python 3's wrapper fills in the item size,
// as Floe does when the configuration leaves it out). numcodecs refuses a buffer that is not
// whole elements; Floe leaves such trailing bytes in place, as Blosc's shuffle does.
import { byteShuffle, byteUnshuffle } from '../blosc/shuffle.ts';
import { checkKeys, readInt } from '../bytes-codec-support.ts';
import type { BytesCodecImplementation } from '../codec-implementation.ts';
import type { BytesToBytesCodec, DecodeLimits } from '../types.ts';
import { boundedPassThrough } from './bounds.ts';

const NAME = 'numcodecs.shuffle';

export function shuffleCodec(elementsize: number): BytesToBytesCodec {
  const run = (shuffle: typeof byteShuffle) => (data: Uint8Array): Uint8Array => {
    if (elementsize <= 1) return data.slice();
    const out = new Uint8Array(data.length);
    shuffle(data, out, elementsize);
    return out;
  };
  const unshuffle = run(byteUnshuffle);
  return {
    kind: 'bytes_to_bytes',
    name: NAME,
    encode: run(byteShuffle),
    decode: (data: Uint8Array, limits?: DecodeLimits) => unshuffle(boundedPassThrough(NAME, data, data.length, limits)),
    computeEncodedSize: (n) => n,
    toJSON: () => ({ name: NAME, configuration: { elementsize } }),
  };
}

export const shuffleEntry: BytesCodecImplementation = {
  name: NAME,
  kind: 'bytes_to_bytes',
  capabilities: { decodeInto: false, boundedDecode: true, partialDecode: false, fixedEncodedSize: true },
  zarrV3: (configuration, context) => {
    checkKeys(NAME, configuration, ['elementsize']);
    return shuffleCodec(readInt(NAME, configuration, 'elementsize', 0, 2 ** 31 - 1, context.itemSize));
  },
};
