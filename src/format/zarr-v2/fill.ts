// Zarr v2 `fill_value`, per dtype, as zarr-python 2 encodes it: numbers; "NaN", "Infinity" and
// "-Infinity" for floats; [re, im] for complex; base64 for fixed bytes (S, V) and records; the
// string itself for U<n>; the int64 count for datetimes. `null` means "no fill value": missing
// chunks are undefined to other readers, so Floe reads them as zeros and never deletes a chunk.
// Object arrays keep their fill as written; only a string fill of an array of strings (vlen-utf8,
// json2, msgpack2, categorize) is a value Floe can hold, so every other one behaves as null.
import { floeError } from '../../errors.ts';
import type { JsonValue } from '../json.ts';
import type { NumpyDataType } from '../numpy/dtype.ts';
import { PyFloat, type PyJson } from '../numpy/python-json.ts';
import { defaultFillValue, parseFillValue, type FillValue, type FillValueInput } from '../zarr/fill-value.ts';
import { fromBase64, toBase64 } from '../../platform/host.ts';

export interface V2FillValue {
  /** What missing chunks read as (the type's zeros when `isNull`). */
  readonly value: FillValue;
  /** Missing chunks are undefined: read as zeros, and chunks are written rather than deleted. */
  readonly isNull: boolean;
  /** The `fill_value` as written. */
  readonly json: JsonValue;
}

const NAMED_FLOATS = ['NaN', 'Infinity', '-Infinity'];
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

export function parseV2FillValue(dtype: NumpyDataType, json: JsonValue, where: string): V2FillValue {
  const dt = dtype.dataType;
  const undefinedFill = Object.freeze({ value: defaultFillValue(dt), isNull: true, json });
  if (json === null) return undefinedFill;
  const bad = (why: string): never => {
    throw floeError('INVALID_METADATA', `"fill_value" ${JSON.stringify(json, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v))} is not valid for dtype ${JSON.stringify(dtype.json)}: ${why}`, { where });
  };
  if (dtype.kind === 'object') return dt.kind === 'string' && typeof json === 'string' ? defined(parseFillValue(dt, json), json) : undefinedFill;
  let input: FillValueInput = json;
  if (dtype.kind === 'bytes' || dtype.kind === 'structured') input = Array.from(base64Bytes(json, dtype.itemSize, dtype.kind === 'bytes' && dtype.typestr.charAt(1) === 'S', bad));
  else if (dtype.kind === 'datetime' && json === 'NaT') input = -(2n ** 63n);
  else if (dt.kind === 'bool' && (json === 0 || json === 1)) input = json === 1;
  else if (dtype.kind === 'unicode' && typeof json === 'string' && [...json].length > dtype.itemSize / 4) bad(`at most ${dtype.itemSize / 4} characters`);
  try {
    return defined(parseFillValue(dt, input), json);
  } catch (err) {
    return bad((err as Error).message);
  }
}

function defined(value: FillValue, json: JsonValue): V2FillValue {
  return Object.freeze({ value, isNull: false, json });
}

/** Base64 of at most (S) or exactly (V, records) `size` bytes; S values are NUL-padded like NumPy's. */
function base64Bytes(json: JsonValue, size: number, padded: boolean, bad: (why: string) => never): Uint8Array {
  if (typeof json !== 'string' || !BASE64.test(json)) return bad('expected base64 text');
  const bytes = fromBase64(json as string);
  if (bytes.length > size || (!padded && bytes.length !== size)) bad(`expected ${padded ? 'at most ' : ''}${size} bytes, got ${bytes.length}`);
  const out = new Uint8Array(size);
  out.set(bytes);
  return out;
}

/** The `fill_value` to write for a fill parsed from `json` (or made by Floe): zarr-python 2's form. */
export function v2FillJson(dtype: NumpyDataType, fill: V2FillValue): PyJson {
  if (fill.isNull) return fill.json;
  const json = fill.value.json;
  switch (dtype.kind) {
    case 'bytes':
    case 'structured':
      return toBase64(fill.value.memory as Uint8Array);
    case 'numeric':
      if (dtype.dataType.kind === 'float') return floatJson(json);
      if (dtype.dataType.kind === 'complex' && Array.isArray(json)) return json.map(floatJson);
      return json;
    default:
      return json;
  }
}

/** A float lane: a Python float, or the named value (a NaN with a payload has no v2 form but "NaN"). */
function floatJson(json: JsonValue): PyJson {
  if (typeof json === 'number') return new PyFloat(json);
  return typeof json === 'string' && NAMED_FLOATS.includes(json) ? json : 'NaN';
}
