// zarrita.js (plain Zarr v3) behind the ArrayAdapter contract, over the same store Floe uses (a Floe
// ZarrStore satisfies zarrita's store contract). zarrita is loaded on first use so floe/testing
// works without it. Its write limits (no sharding, gzip, crc32c or vlen-utf8 encoding, no bigint or
// named fill values in JSON) make `canWrite` false: Floe writes those arrays and zarrita only reads.
import type { ZarrStore } from '../../engine/store.ts';
import { checkedAt, zipMap } from '../../engine/indexing.ts';
import type { ArrayCase } from '../arbitraries/array-metadata.ts';
import { dataTypeNamed, type ElementValues, type TestDataType } from '../arbitraries/data-types.ts';
import { importOptional } from '../../optional-dependency.ts';
import { resolveSelection, type ModelItem } from '../model/array-model.ts';
import type { ArrayAdapter, ArrayHandle } from './types.ts';

type Zarrita = typeof import('zarrita');
let loaded: Promise<Zarrita> | undefined;
const zarrita = (): Promise<Zarrita> => (loaded ??= importOptional('zarrita', 'the zarrita adapter', () => import('zarrita')));

/** Data types zarrita 0.7.5 holds on Node 20 (no float16, complex, r<N>); `string` it reads only. */
export const ZARRITA_DATA_TYPES = ['bool', 'int8', 'int16', 'int32', 'int64', 'uint8', 'uint16', 'uint32', 'uint64', 'float32', 'float64', 'string'] as const;

/** Raw bytes of zarrita's typed data (a typed array, or a BoolArray). */
function elementBytes(data: unknown): Uint8Array {
  if (ArrayBuffer.isView(data)) return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  return Uint8Array.from(data as Iterable<boolean>, (b) => (b ? 1 : 0));
}

/** The element offsets of a strided result, visited in C order. */
function cOrderOffsets(shape: readonly number[], stride: readonly number[]): number[] {
  const n = shape.reduce((a, b) => a * b, 1);
  const offsets = new Array<number>(n);
  // An odometer: each axis's current index, the last axis turning fastest.
  const axes = zipMap(shape, stride, (length, step) => ({ length, step, at: 0 }));
  const innerFirst = [...axes].reverse();
  for (let k = 0; k < n; k++) {
    let offset = 0;
    for (const a of axes) offset += a.at * a.step;
    offsets[k] = offset;
    for (const a of innerFirst) {
      if (++a.at < a.length) break;
      a.at = 0;
    }
  }
  return offsets;
}

interface Strided {
  readonly data: unknown;
  readonly shape: number[];
  readonly stride: number[];
}

/**
 * A zarrita read as the adapter contract's values, in C order (zarrita may hand back F-ordered
 * data with matching strides): strings stay strings, everything else becomes raw bytes.
 */
function cOrderValues(d: TestDataType, strided: Strided): ElementValues {
  const offsets = cOrderOffsets(strided.shape, strided.stride);
  if (d.kind === 'string') return offsets.map((e) => checkedAt(strided.data as readonly string[], e, 'INVALID_SELECTION', 'zarrita result shorter than its shape'));
  const src = elementBytes(strided.data);
  const out = new Uint8Array(offsets.length * d.memBytes);
  offsets.forEach((e, k) => out.set(src.subarray(e * d.memBytes, (e + 1) * d.memBytes), k * d.memBytes));
  return out;
}

async function handle(z: Zarrita, store: ZarrStore, path: string): Promise<ArrayHandle> {
  const array = await z.open(z.root(store).resolve(path), { kind: 'array' });
  const d = dataTypeNamed(String(array.dtype));
  // zarrita has no '...': the adapter spells it out with the shape (syntax, not semantics). An
  // integer index becomes a slice of one: for a selection of single elements zarrita reads and
  // writes a JS number, and a float32 NaN's payload does not survive the trip through a double
  // (0x7fbfffff comes back 0x7fffffff). The kept length-1 dimensions do not change C order.
  const toZarrita = (items: readonly ModelItem[]) => {
    const explicit = items.filter((x) => x.kind !== 'ellipsis');
    const expanded = items.flatMap((x): ModelItem[] => (x.kind === 'ellipsis' ? Array(array.shape.length - explicit.length).fill({ kind: 'all' }) : [x]));
    return resolveSelection(items, array.shape).map((dim, i) => {
      const it = expanded[i];
      if (dim.drop) {
        const at = checkedAt(dim.indices, 0, 'INVALID_SELECTION', 'integer index');
        return z.slice(at, at + 1);
      }
      return it?.kind === 'slice' ? z.slice(it.start, it.stop, it.step) : null;
    });
  };
  return {
    async read(selection) {
      const dims = resolveSelection(selection, array.shape);
      const shape = dims.filter((x) => !x.drop).map((x) => x.indices.length);
      // A 0-d array has no dimension to keep: its one chunk is its value, as typed data.
      if (array.shape.length === 0) {
        const { data } = (await array.getChunk([])) as { data: unknown };
        return { shape, values: d.kind === 'string' ? [checkedAt(data as readonly string[], 0, 'INVALID_SELECTION', '0-d string value')] : elementBytes(data) };
      }
      return { shape, values: cOrderValues(d, (await z.get(array, toZarrita(selection))) as Strided) };
    },
    async write(selection, values) {
      if (d.kind === 'string') throw new Error('zarrita 0.7.5 cannot encode vlen-utf8; canWrite keeps string arrays on the Floe side');
      const dims = resolveSelection(selection, array.shape);
      const shape = dims.map((x) => x.indices.length);
      const stride = shape.map((_, i) => shape.slice(i + 1).reduce((a, b) => a * b, 1));
      const buffer = (values as Uint8Array).slice().buffer;
      const data = d.name === 'bool' ? new z.BoolArray(buffer) : new d.Ctor!(buffer);
      // A 0-d array takes only a scalar in zarrita (canWrite leaves float32 ones to the peer).
      if (array.shape.length === 0) return z.set(array, [], (d.name === 'bool' ? values[0] === 1 : (data as ArrayLike<unknown>)[0]) as never);
      // `as never`: zarrita types the chunk by its dtype literal, which a runtime dtype cannot name.
      await z.set(array, toZarrita(selection), { data, shape, stride } as never);
    },
  };
}

/**
 * zarrita.js as an {@link ArrayAdapter}, over the same stores (loaded on first use; needs `zarrita`).
 * `canWrite` is false for what zarrita cannot write (sharding, some codecs and fill values, strings),
 * so Floe writes those cases and zarrita only reads them.
 */
export function zarritaArrayAdapter(): ArrayAdapter {
  return {
    name: 'zarrita',
    canWrite: (c: ArrayCase) =>
      (ZARRITA_DATA_TYPES as readonly string[]).includes(c.dtype.name) && c.dtype.kind !== 'string' &&
      // A float32 NaN's payload does not survive zarrita's writes of a 0-d array (a JS number
      // only) nor its transpose encoding (elements copied through JS numbers; docs/CONFORMANCE.md).
      !(c.dtype.name === 'float32' && (c.shape.length === 0 || c.codecs.some((x) => x.name === 'transpose'))) &&
      typeof c.fill.json !== 'bigint' && typeof c.fill.json !== 'string' &&
      // zarrita writes zarr.json with JSON.stringify, which spells a -0 fill value as 0.
      !Object.is(c.fill.json, -0) &&
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
