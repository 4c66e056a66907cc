// What numcodecs' JSON and MsgPack object codecs store: the chunk's elements as nested lists (the
// chunk's logical C order, whatever its memory order), then the dtype string and the shape:
// [[a, b], [c, d], "|O", [2, 2]]. Floe reads such arrays when every element is a string.
import { floeError } from '../../../errors.ts';
import { product } from '../../zarr/ndarray.ts';
import { corrupt } from '../bytes-codec-support.ts';

/** `strings` (C order) in `shape` as nested lists, followed by "|O" and the shape. */
export function objectItems(strings: readonly string[], shape: readonly number[]): unknown[] {
  const nest = (dim: number, offset: number): unknown[] => {
    const extent = shape[dim] ?? 0;
    if (dim === shape.length - 1) return strings.slice(offset, offset + extent);
    const inner = product(shape.slice(dim + 1));
    return Array.from({ length: extent }, (_, i) => nest(dim + 1, offset + i * inner));
  };
  // numcodecs cannot store a 0-d object chunk (its list of items is a scalar); Floe stores one element.
  const items = shape.length === 0 ? strings.slice(0, 1) : nest(0, 0);
  return [...items, '|O', [...shape]];
}

/** The strings of a decoded item list, checked against the chunk's shape. */
export function stringsOfItems(codec: string, decoded: unknown, shape: readonly number[]): string[] {
  if (!Array.isArray(decoded) || decoded.length < 2) throw corrupt(codec, 'the value is not a list ending with the dtype and shape');
  const stored = decoded[decoded.length - 1];
  const items = decoded.slice(0, -2);
  const n = product(shape);
  const storedShape = Array.isArray(stored) ? stored.map(Number) : [];
  if (product(storedShape) !== n) throw corrupt(codec, `it holds a chunk of shape [${storedShape.join(', ')}], expected [${shape.join(', ')}]`);
  const flat = shape.length === 0 ? items : items.flat(Math.max(0, storedShape.length - 1));
  if (flat.length !== n) throw corrupt(codec, `it holds ${flat.length} elements, expected ${n}`);
  return flat.map((item, i) => {
    if (typeof item !== 'string') {
      throw floeError('UNSUPPORTED', `${codec}: element ${i} of the chunk is ${item === null ? 'None' : typeof item}; Floe reads ${codec} object arrays whose elements are strings`);
    }
    return item;
  });
}
