// Elements of variable-length arrays as bytes: strings are UTF-8, binary elements are themselves.
// Shared by the vlen codecs (zarr-python's framed layout and the ZEP's offsets layout).
import { floeError } from '../../errors.ts';
import type { DataType } from '../zarr/data-types.ts';
import type { NdArray } from '../zarr/ndarray.ts';
import type { ChunkSpec } from './array-codecs.ts';
import { toCContiguous } from './contiguous.ts';

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: true });
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** The chunk's elements in C order as bytes; a wrongly typed element is the caller's error. */
export function elementBytes(array: NdArray, spec: ChunkSpec, codec: string): Uint8Array[] {
  const items = toCContiguous(array, spec.dataType).data as unknown[];
  const strings = spec.dataType.kind === 'string';
  return items.map((item, i) => {
    if (strings && typeof item === 'string') {
      // TextEncoder would silently turn a lone surrogate into U+FFFD: refuse instead.
      if (LONE_SURROGATE.test(item)) throw floeError('INVALID_ARGUMENT', `${codec}: element ${i} contains a lone UTF-16 surrogate, which UTF-8 cannot represent`);
      return encoder.encode(item);
    }
    if (!strings && item instanceof Uint8Array) return item;
    throw floeError('INVALID_ARGUMENT', `${codec}: element ${i} of a ${spec.dataType.name} array must be a ${strings ? 'string' : 'Uint8Array'}, got ${describe(item)}`);
  });
}

/** Decodes one stored element: a copy for binary (never a view into a reused buffer), text for strings. */
export function elementFromBytes(bytes: Uint8Array, dataType: DataType, codec: string, index: number): string | Uint8Array {
  if (dataType.kind !== 'string') return bytes.slice();
  try {
    return decoder.decode(bytes);
  } catch (cause) {
    throw floeError('CORRUPT_OBJECT', `${codec} element ${index} is not valid UTF-8`, { cause });
  }
}

export function checkVariableLength(dataType: DataType, codec: string): void {
  if (dataType.kind !== 'string' && dataType.kind !== 'binary') {
    throw floeError('INVALID_METADATA', `${codec} encodes variable-length strings or bytes, not ${dataType.name}`);
  }
}

function describe(v: unknown): string {
  if (v === null) return 'null';
  if (typeof v === 'object') return (v as object).constructor?.name ?? 'object';
  return typeof v;
}
