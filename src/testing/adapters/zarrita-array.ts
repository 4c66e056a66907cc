// zarrita.js (plain Zarr v3) behind the ArrayAdapter contract, over the same store Floe uses (a Floe
// ZarrStore satisfies zarrita's store contract). zarrita is loaded on first use so floe/testing
// works without it. Its write limits (no sharding, gzip or crc32c encoding, no bigint or named
// fill values in JSON) make `canWrite` false: Floe writes those arrays and zarrita only reads.
import type { ZarrStore } from '../../engine/store.ts';
import type { ArrayCase } from '../arbitraries/array-metadata.ts';
import { dataTypeNamed, type TestDataType } from '../arbitraries/data-types.ts';
import { resolveSelection, type ModelItem } from '../model/array-model.ts';
import type { ArrayAdapter, ArrayHandle } from './types.ts';

type Zarrita = typeof import('zarrita');
let loaded: Promise<Zarrita> | undefined;
const zarrita = (): Promise<Zarrita> => (loaded ??= import('zarrita'));

/** Data types zarrita 0.7.5 holds on Node 20 (no float16, complex, r<N>). */
export const ZARRITA_DATA_TYPES = ['bool', 'int8', 'int16', 'int32', 'int64', 'uint8', 'uint16', 'uint32', 'uint64', 'float32', 'float64'] as const;

/** Raw bytes of any zarrita result (typed array, BoolArray, or a scalar for an all-integer selection). */
function elementBytes(d: TestDataType, data: unknown): Uint8Array {
  if (ArrayBuffer.isView(data)) return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  if (typeof data === 'object' && data !== null && Symbol.iterator in data) return Uint8Array.from(data as Iterable<boolean>, (b) => (b ? 1 : 0));
  const one = new d.Ctor!(new ArrayBuffer(d.memBytes)) as unknown as { [i: number]: unknown };
  one[0] = typeof data === 'boolean' ? Number(data) : data;
  return new Uint8Array((one as unknown as Uint8Array).buffer);
}

/** zarrita may hand back F-ordered data with matching strides: lay it out in C order. */
function cOrdered(src: Uint8Array, shape: readonly number[], stride: readonly number[], width: number): Uint8Array {
  const n = shape.reduce((a, b) => a * b, 1);
  const out = new Uint8Array(n * width);
  const idx = new Array<number>(shape.length).fill(0);
  for (let k = 0; k < n; k++) {
    const e = idx.reduce((acc, x, i) => acc + x * stride[i]!, 0);
    out.set(src.subarray(e * width, (e + 1) * width), k * width);
    for (let i = shape.length - 1; i >= 0; i--) {
      if (++idx[i]! < shape[i]!) break;
      idx[i] = 0;
    }
  }
  return out;
}

async function handle(z: Zarrita, store: ZarrStore, path: string): Promise<ArrayHandle> {
  const array = await z.open(z.root(store).resolve(path), { kind: 'array' });
  const d = dataTypeNamed(String(array.dtype));
  // zarrita has no '...': the adapter spells it out with the shape (syntax, not semantics).
  const toZarrita = (items: readonly ModelItem[]) => {
    const explicit = items.filter((x) => x.kind !== 'ellipsis');
    const expanded = items.flatMap((x): ModelItem[] => (x.kind === 'ellipsis' ? Array(array.shape.length - explicit.length).fill({ kind: 'all' }) : [x]));
    return resolveSelection(items, array.shape).map((dim, i) => {
      const it = expanded[i];
      if (dim.drop) return dim.indices[0]!;
      return it?.kind === 'slice' ? z.slice(it.start, it.stop, it.step) : null;
    });
  };
  return {
    async read(selection) {
      const dims = resolveSelection(selection, array.shape);
      const shape = dims.filter((x) => !x.drop).map((x) => x.indices.length);
      const got = (await z.get(array, toZarrita(selection))) as unknown;
      if (shape.length === 0 || typeof got !== 'object' || got === null || !('data' in got)) return { shape, values: elementBytes(d, got) };
      const r = got as { data: unknown; shape: number[]; stride: number[] };
      return { shape: r.shape, values: cOrdered(elementBytes(d, r.data), r.shape, r.stride, d.memBytes) };
    },
    async write(selection, values) {
      const dims = resolveSelection(selection, array.shape);
      const shape = dims.filter((x) => !x.drop).map((x) => x.indices.length);
      const stride = shape.map((_, i) => shape.slice(i + 1).reduce((a, b) => a * b, 1));
      const buffer = (values as Uint8Array).slice().buffer;
      const data = d.name === 'bool' ? new z.BoolArray(buffer) : new d.Ctor!(buffer);
      // A selection of single elements takes a scalar in zarrita (an array is refused).
      if (shape.length === 0) return z.set(array, toZarrita(selection), (d.name === 'bool' ? values[0] === 1 : (data as ArrayLike<unknown>)[0]) as never);
      // `as never`: zarrita types the chunk by its dtype literal, which a runtime dtype cannot name.
      await z.set(array, toZarrita(selection), { data, shape, stride } as never);
    },
  };
}

export function zarritaArrayAdapter(): ArrayAdapter {
  return {
    name: 'zarrita',
    canWrite: (c: ArrayCase) =>
      (ZARRITA_DATA_TYPES as readonly string[]).includes(c.dtype.name) &&
      typeof c.fill.json !== 'bigint' && typeof c.fill.json !== 'string' &&
      !JSON.stringify(c.codecs).match(/sharding_indexed|gzip|crc32c/),
    async createArray(store, path, c) {
      const z = await zarrita();
      await z.create(z.root(store).resolve(path), {
        shape: c.shape, chunkShape: c.chunkShape, dtype: c.dtype.name as never, codecs: c.codecs as never, fillValue: c.fill.json as never,
      });
      return handle(z, store, path);
    },
    openArray: async (store, path) => handle(await zarrita(), store, path),
  };
}
