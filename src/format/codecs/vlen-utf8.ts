// `vlen-utf8` (zarr-python 3's string codec): u32le count, then for each element u32le byte
// length + UTF-8 bytes, in C order.
import { floeError } from '../../errors.ts';
import { cStrides, product } from '../zarr/ndarray.ts';
import type { ArrayToBytesCodec } from './array-codecs.ts';
import { toCContiguous } from './contiguous.ts';

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: true });

export function vlenUtf8Codec(): ArrayToBytesCodec {
  return {
    kind: 'array_to_bytes',
    name: 'vlen-utf8',
    toJSON: () => ({ name: 'vlen-utf8' }),
    encode(array, spec) {
      const strings = toCContiguous(array, spec.dataType).data as string[];
      const parts = strings.map((s) => encoder.encode(s));
      const total = 4 + parts.reduce((n, p) => n + 4 + p.length, 0);
      const out = new Uint8Array(total);
      const view = new DataView(out.buffer);
      view.setUint32(0, parts.length, true);
      let pos = 4;
      for (const p of parts) {
        view.setUint32(pos, p.length, true);
        out.set(p, pos + 4);
        pos += 4 + p.length;
      }
      return out;
    },
    decode(bytes, spec) {
      const n = product(spec.shape);
      const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      const corrupt = (why: string): never => {
        throw floeError('CORRUPT_OBJECT', `vlen-utf8 chunk is malformed: ${why}`);
      };
      if (bytes.length < 4) corrupt('shorter than its 4-byte count');
      const count = view.getUint32(0, true);
      if (count !== n) corrupt(`holds ${count} strings, expected ${n}`);
      const out = new Array<string>(n);
      let pos = 4;
      for (let i = 0; i < n; i++) {
        if (pos + 4 > bytes.length) corrupt(`truncated at element ${i}`);
        const len = view.getUint32(pos, true);
        pos += 4;
        if (pos + len > bytes.length) corrupt(`element ${i} runs past the end`);
        try {
          out[i] = decoder.decode(bytes.subarray(pos, pos + len));
        } catch (cause) {
          throw floeError('CORRUPT_OBJECT', `vlen-utf8 element ${i} is not valid UTF-8`, { cause });
        }
        pos += len;
      }
      if (pos !== bytes.length) corrupt(`${bytes.length - pos} trailing bytes`);
      return { data: out, shape: [...spec.shape], stride: cStrides(spec.shape) };
    },
  };
}
