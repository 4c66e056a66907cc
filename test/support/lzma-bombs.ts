// LZMA decompression bombs: 16 MiB of zeros in about 2.5 KB, in each form Floe reads (xz, .lzma
// "alone", raw LZMA2, raw LZMA1). The native encoder Floe has writes LZMA2 as stored chunks and
// LZMA1 as literals only (it cannot make a bomb), so these were written once by Python 3.11's lzma
// module at preset 9, then zlib-compressed and base64-encoded to keep them short:
//   python3 -c "import lzma, zlib, base64; d = bytes(16 << 20);
//     c = lzma.compress(d, format=lzma.FORMAT_XZ, preset=9)   # or FORMAT_ALONE, or FORMAT_RAW with
//     print(base64.b64encode(zlib.compress(c, 9)).decode())"  # filters=[{'id': FILTER_LZMA2 / _LZMA1, 'preset': 9}]
import { inflateSync } from 'node:zlib';

/** What every bomb decodes to: 16 MiB of zeros. */
export const LZMA_BOMB_BYTES = 16 * 2 ** 20;

const ENCODED = {
  xz: 'eNr7a14VEcXAwPLs2hY3JgZFRhkGBgaB8xFn/v8XZMyJZWDI//v//+Lt/93tPESLLBMDd0zSeLa4jf3nuydyTZf1j1rZMHpvrDvZ1eWrv5j3Zv2yxz3KgsEPIiWOlnY9Kv+xbUo9T9aBeyWeKY9exgRvYrnx3YVndTxvrtvLp4fLOrZPC1+zzfdhpmz+b+8OgRyn0x32MQz9F/zWq2lMKZS37Vd5WDBvuXL8G43TrRenzuiq05r4Sb30u+QBthm+M/7eWH91Av8R1eAfXyeaGbIu3fAu/2CBrzvPxYmCq9YmyO46t1FdIiay7WVaUMS+l2VrIp88jWbl+Hn81to/v4O0S87KRSs4/bwbbPtDM4XTuuG0Vs79rdYfjuzVi1/Fb+ed5jRBmO+/wOQfhRWRP7jP/p+q4ca/8k/Nvd+zDPTCDvS3fm5uPJBKZav3eKg/i5j/X4BRm+FNcfDyv/vW1RhKzd/ea5g3csKANKsD+e03jQbYaICNBthogI0G2GiAjQYYrgBrYC9jYGHYnvmnBNi0Y9j3mPnb/7P/FBgYXwo3NDRwsJ/LerPxSPpvJpAkS2QUAEwjCA8=',
  alone: 'eNqLZWBgYPkPBQwM+X///1+8/b+7nYdokWVi4I5JGs8Wt7H/fPdErumy/lErG0bvjXUnu7p89Rfz3qxf9rhHWTD4QaTE0dKuR+U/tk2p58k6cK/EM+XRy5jgTSw3vrvwrI7nzXV7+fRwWcf2aeFrtvk+zJTN/+3dIZDjdLrDPoah/4LfejWNKYXytv0qDwvmLVeOf6NxuvXi1BlddVoTP6mXfpc8wDbDd8bfG+uvTuA/ohr84+tEM0PWpRve5R8s8HXnuThRcNXaBNld5zaqS8REtr1MC4rY97JsTeSTp9GsHD+P31r753eQdslZuWgFp593g21/aKZwWjec1sq5v9X6w5G9evGr+O2805wmCPP9F5j8o7Ai8gf32f9TNdz4V/6pufd7loFe2IH+1s/NjQdSR60etXrU6lGrR60etXrU6lGraWO17APdL///f/3ewAAAagncRQ==',
  rawLzma2: 'eNr7/1+QMSeWgSH/7///i7f/d7fzEC2yTAzcMUnj2eI29p/vnsg1XdY/amXD6L2x7mRXl6/+Yt6b9cse9ygLBj+IlDha2vWo/Me2KfU8WQfulXimPHoZE7yJ5cZ3F57V8by5bi+fHi7r2D4tfM0234eZsvm/vTsEcpxOd9jHMPRf8FuvpjGlUN62X+VhwbzlyvFvNE63Xpw6o6tOa+In9dLvkgfYZvjO+Htj/dUJ/EdUg398nWhmyLp0w7v8gwW+7jwXJwquWpsgu+vcRnWJmMi2l2lBEftelq2JfPI0mpXj5/Fba//8DtIuOSsXreD0826w7Q/NFE7rhtNaOfe3Wn84slcvfhW/nXea0wRhvv8Ck38UVkT+4D77f6qGG//KPzX3fs8y0As70N/6ubnxQCqVrd7jof4sYv5/AUZthjfFwcv/7ltXYyg1f3uvYd7ICQPSrA7kt980GmCjATYaYKMBNhpgowE2GmC4AqyBvYyBhWF75p8SBgA4GvLf',
  rawLzma1: 'eNpjYMj/+///4u3/3e08RIssEwN3TNJ4triN/ee7J3JNl/WPWtkwem+sO9nV5au/mPdm/bLHPcqCwQ8iJY6Wdj0q/7FtSj1P1oF7JZ4pj17GBG9iufHdhWd1PG+u28unh8s6tk8LX7PN92GmbP5v7w6BHKfTHfYxDP0X/NaraUwplLftV3lYMG+5cvwbjdOtF6fO6KrTmvhJvfS75AG2Gb4z/t5Yf3UC/xHV4B9fJ5oZsi7d8C7/YIGvO8/FiYKr1ibI7jq3UV0iJrLtZVpQxL6XZWsinzyNZuX4efzW2j+/g7RLzspFKzj9vBts+0MzhdO64bRWzv2t1h+O7NWLX8Vv553mNEGY77/A5B+FFZE/uM/+n6rhxr/yT82937MM9MIO9Ld+bm48kDpq9ajVo1aPWj1q9ajVo1aPWk0bq2Uf6H75///r9wYGAKPy0+w=',
} as const;

export type LzmaBombForm = keyof typeof ENCODED;

/** The bomb in `form`, as the lzma codec reads it. */
export function lzmaBomb(form: LzmaBombForm): Uint8Array {
  return new Uint8Array(inflateSync(Buffer.from(ENCODED[form], 'base64')));
}

/** The Zarr v1 lzma compression_opts that read each form (preset 9: a 64 MiB dictionary). */
export const LZMA_BOMB_OPTS: Readonly<Record<LzmaBombForm, Record<string, unknown>>> = {
  xz: { format: 1 },
  alone: { format: 2 },
  rawLzma2: { format: 3, filters: [{ id: 33, preset: 9 }] },
  rawLzma1: { format: 3, filters: [{ id: 2 ** 62, preset: 9 }] },
};
