// Zarr v1 `fill_value`, per dtype. `null` means "undefined contents" in the spec; Floe reads
// missing chunks of such arrays as zeros (false, "", zero bytes) and never deletes a written
// chunk, so other v1 readers see exactly what was written.
import { floeError } from '../../errors.ts';
import type { JsonValue } from '../json.ts';
import { checkedAt } from '../indexing.ts';
import { defaultFillValue, parseFillValue, type FillValue, type FillValueInput } from '../zarr/fill-value.ts';
import type { NumpyDataType } from '../numpy/dtype.ts';
import { PyFloat, type PyJson } from '../numpy/python-json.ts';

export interface V1FillValue {
  /** What missing chunks read as (zeros when `isNull`). */
  readonly value: FillValue;
  readonly isNull: boolean;
  /** The `fill_value` as written. */
  readonly json: JsonValue;
}

export function parseV1FillValue(dtype: NumpyDataType, json: JsonValue, where: string): V1FillValue {
  const dt = dtype.dataType;
  if (json === null) return Object.freeze({ value: defaultFillValue(dt), isNull: true, json });
  const bad = (why: string): never => {
    throw floeError('INVALID_METADATA', `"fill_value" ${JSON.stringify(json)} is not valid for dtype ${JSON.stringify(dtype.json)}: ${why}`, { where });
  };
  if (dtype.kind === 'structured') bad('structured arrays take null (a record fill value has no JSON form in zarr 1.x)');
  let input: FillValueInput = json;
  if (dtype.kind === 'bytes') input = Array.from(fixedBytes(json, dtype.itemSize, bad));
  else if (dt.kind === 'bool' && (json === 0 || json === 1)) input = json === 1; // NumPy writes 0/1 for bool fills
  try {
    return Object.freeze({ value: parseFillValue(dt, input), isNull: false, json });
  } catch (err) {
    return bad((err as Error).message);
  }
}

/** `S<n>` fills: a (Latin-1) string as Python 2 zarr wrote bytes, NUL-padded; or 0 for all zeros. */
function fixedBytes(json: JsonValue, size: number, bad: (why: string) => never): Uint8Array {
  const out = new Uint8Array(size);
  if (json === 0) return out;
  if (typeof json !== 'string') bad('expected a string, 0 or null');
  const s = json as string;
  if (s.length > size || [...s].some((c) => c.charCodeAt(0) > 255)) bad(`expected at most ${size} Latin-1 characters`);
  for (let i = 0; i < s.length; i++) out[i] = s.charCodeAt(i);
  return out;
}

/** The JSON to write: floats as Python floats (0.0, NaN) from the parsed value, the rest as given. */
export function v1FillJson(dtype: NumpyDataType, fill: V1FillValue): PyJson {
  if (fill.isNull || dtype.kind !== 'numeric') return fill.json;
  const lanes = fill.value.memory as Float32Array | Float64Array;
  // A float fill holds one lane, a complex fill two (real, imaginary).
  const lane = (i: number) => new PyFloat(checkedAt(lanes, i, 'INVALID_METADATA', 'the fill value'));
  if (dtype.dataType.kind === 'float') return lane(0);
  if (dtype.dataType.kind === 'complex') return [lane(0), lane(1)];
  return fill.json;
}
