// HDF5 attributes as JSON, and netCDF-4's bookkeeping: the attributes that are dimension-scale and
// netCDF bookkeeping (dropped), DIMENSION_LIST resolved to dimension names through the global
// heap, and the dimension scales that are netCDF dimensions without a variable.
import type { JsonValue } from '../json.ts';
import type { Attributes } from '../zarr/metadata.ts';
import type { Hdf5Dataset, Hdf5File } from './file.ts';
import { Cursor, UNDEFINED } from './io.ts';
import type { Hdf5Type, RawAttribute } from './messages.ts';

const NETCDF_DIMENSION_ONLY = 'This is a netCDF dimension but not a netCDF variable';
/** Attributes that are netCDF-4's and HDF5 dimension scales' bookkeeping, not user attributes. */
export const BOOKKEEPING = new Set(['CLASS', 'NAME', 'DIMENSION_LIST', 'REFERENCE_LIST', '_Netcdf4Dimid', '_Netcdf4Coordinates', '_nc3_strict', '_NCProperties', '_IsNetcdf4', '_SuperblockVersion', 'DIMENSION_LABELS']);

/** A number or list from an attribute's bytes, as JSON (NaN and infinities as Zarr's strings). */
export function numbersOf(t: Hdf5Type, data: Uint8Array, count: number): JsonValue[] | undefined {
  const base = t.kind === 'enum' ? t.base : t;
  if (base.kind !== 'int' && base.kind !== 'float') return undefined;
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const little = !base.bigEndian;
  const out: JsonValue[] = [];
  if (data.length < count * base.size) return undefined;
  for (let i = 0; i < count; i++) {
    const at = i * base.size;
    let v: number | bigint;
    if (base.kind === 'float') {
      if (base.size === 4) v = view.getFloat32(at, little);
      else if (base.size === 8) v = view.getFloat64(at, little);
      else return undefined;
      out.push(Number.isFinite(v) ? v : Number.isNaN(v) ? 'NaN' : v > 0 ? 'Infinity' : '-Infinity');
      continue;
    }
    switch (base.size) {
      case 1:
        v = base.signed ? view.getInt8(at) : view.getUint8(at);
        break;
      case 2:
        v = base.signed ? view.getInt16(at, little) : view.getUint16(at, little);
        break;
      case 4:
        v = base.signed ? view.getInt32(at, little) : view.getUint32(at, little);
        break;
      case 8: {
        const b = base.signed ? view.getBigInt64(at, little) : view.getBigUint64(at, little);
        v = b >= BigInt(Number.MIN_SAFE_INTEGER) && b <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(b) : b;
        break;
      }
      default:
        return undefined;
    }
    out.push(v as JsonValue);
  }
  return out;
}

/** An attribute's value as JSON, or undefined when Floe cannot represent it (references, compounds). */
export async function attributeValue(file: Hdf5File, attr: RawAttribute, object: string): Promise<JsonValue | undefined> {
  const dims = attr.space.dims;
  if (dims === null) return null;
  const count = dims.reduce((a, b) => a * b, 1);
  if (count > 1_000_000) return undefined;
  const t = attr.type;
  if (t.kind === 'string') {
    const texts: string[] = [];
    for (let i = 0; i < count; i++) {
      const raw = attr.data.subarray(i * t.size, (i + 1) * t.size);
      const end = raw.indexOf(0);
      texts.push(new TextDecoder().decode(end < 0 ? raw : raw.subarray(0, end)));
    }
    return dims.length === 0 || count === 1 ? (texts[0] ?? '') : texts;
  }
  if (t.kind === 'vlen-string') {
    const sizes = file.superblock.sizes;
    const c = new Cursor(attr.data, sizes, '', object);
    const texts: string[] = [];
    for (let i = 0; i < count; i++) {
      const length = c.u32();
      const collection = c.address();
      const index = c.u32();
      if (collection === UNDEFINED || length === 0) {
        texts.push('');
        continue;
      }
      const bytes = await file.globalHeaps.get(collection, index, object);
      texts.push(new TextDecoder().decode(bytes.subarray(0, Math.min(length, bytes.length))));
    }
    return count === 1 ? (texts[0] ?? '') : texts;
  }
  const numbers = numbersOf(t, attr.data, count);
  if (!numbers) return undefined;
  return dims.length === 0 || count === 1 ? (numbers[0] ?? null) : numbers;
}

/** The user attributes of an object (bookkeeping dropped, unrepresentable ones left out). */
export async function attributesOf(file: Hdf5File, attrs: readonly RawAttribute[], object: string): Promise<Attributes> {
  const out: Record<string, JsonValue> = {};
  for (const a of attrs) {
    if (BOOKKEEPING.has(a.name)) continue;
    const v = await attributeValue(file, a, object);
    if (v !== undefined) out[a.name] = v;
  }
  return out;
}

/** The dimension names DIMENSION_LIST gives (each dimension's first scale, by its name). */
export async function dimensionNamesOf(file: Hdf5File, ds: Hdf5Dataset, rank: number): Promise<(string | null)[] | undefined> {
  const list = ds.attributes.find((a) => a.name === 'DIMENSION_LIST');
  const name = (p: string) => p.split('/').pop() ?? p;
  if (!list) return isDimensionScale(ds) && rank === 1 ? [name(ds.path)] : undefined;
  if (list.type.kind !== 'vlen' || list.type.base.kind !== 'reference') return undefined;
  const sizes = file.superblock.sizes;
  const c = new Cursor(list.data, sizes, '', `/${ds.path}`);
  const out: (string | null)[] = [];
  for (let i = 0; i < rank; i++) {
    const length = c.u32();
    const collection = c.address();
    const index = c.u32();
    if (length === 0 || collection === UNDEFINED) {
      out.push(null);
      continue;
    }
    const refs = new Cursor(await file.globalHeaps.get(collection, index, `/${ds.path}`), sizes, '', `/${ds.path}`);
    const target = refs.address();
    const p = file.pathByAddress.get(target);
    out.push(p === undefined ? null : name(p));
  }
  return out;
}

function isDimensionScale(ds: Hdf5Dataset): boolean {
  const cls = ds.attributes.find((a) => a.name === 'CLASS');
  return cls !== undefined && cls.type.kind === 'string' && new TextDecoder().decode(cls.data).startsWith('DIMENSION_SCALE');
}

/** True for a netCDF-4 dimension without a coordinate variable (not an array in netCDF). */
export function isDimensionOnly(ds: Hdf5Dataset): boolean {
  const n = ds.attributes.find((a) => a.name === 'NAME');
  return isDimensionScale(ds) && n !== undefined && n.type.kind === 'string' && new TextDecoder().decode(n.data).startsWith(NETCDF_DIMENSION_ONLY);
}

