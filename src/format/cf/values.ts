// CF packed and missing values (CF 1.11 §2.5.1, §8.1; NetCDF's `_Unsigned`): how a stored
// number becomes a physical one. The order is xarray's: `_Unsigned` reinterprets the stored
// integers, `_FillValue` and `missing_value` (scalars or lists, compared with the stored values)
// become NaN, then `scale_factor` multiplies and `add_offset` adds. docs/cf.md gives each rule
// and where it differs from xarray 2023.01.
import { floeError } from '../../errors.ts';
import type { JsonValue } from '../json.ts';
import { INTEGER_BYTES, type CfValueCoding } from './kernel.ts';

export { valueKernel, type CfValueCoding, type ValueKernel } from './kernel.ts';

/** Numeric Zarr data types CF decoding applies to. */
const FLOAT_BYTES: Readonly<Record<string, number>> = { float16: 2, float32: 4, float64: 8 };
const FLIP_SIGN: Readonly<Record<string, string>> = { int8: 'uint8', uint8: 'int8', int16: 'uint16', uint16: 'int16', int32: 'uint32', uint32: 'int32', int64: 'uint64', uint64: 'int64' };

export interface CfValueCodingResult {
  readonly coding: CfValueCoding;
  readonly warnings: readonly string[];
}

/**
 * Whether a Zarr v2 `fill_value` is a CF missing value. xarray writes a variable's `_FillValue`
 * there (not in `.zattrs`) and reads it back from there, so Floe does too, with one exception: a
 * fill value of 0 on an array that is not packed (no scale_factor / add_offset) is zarr-python's
 * default, and those zeros are data (xarray masks them). A `_FillValue` attribute wins.
 */
export function v2FillIsMissing(attributes: Readonly<Record<string, JsonValue>>, fill: number | bigint | undefined): boolean {
  if (fill === undefined || attributes._FillValue !== undefined) return false;
  const packed = attributes.scale_factor !== undefined || attributes.add_offset !== undefined;
  return Number(fill) !== 0 || packed;
}

/**
 * The value coding of a variable from its attributes, its stored data type (a Zarr v3 name) and,
 * for Zarr v2 arrays, its `fill_value` (undefined for v3 arrays and v2's null). A v3 array's
 * `fill_value` is never a CF missing value, only its `_FillValue` attribute is (newer xarray reads
 * v3 the same way); Floe's v2 -> v3 conversion writes that attribute where v2FillIsMissing holds.
 */
export function valueCoding(attributes: Readonly<Record<string, JsonValue>>, dataType: string, zarrFill: number | bigint | undefined, where: string): CfValueCodingResult {
  const warnings: string[] = [];
  const storedInteger = INTEGER_BYTES[dataType] !== undefined;
  if (!storedInteger && FLOAT_BYTES[dataType] === undefined) return { coding: { dataType, missing: [] }, warnings };
  let meaning = dataType;
  const unsigned = attributes._Unsigned;
  if (unsigned !== undefined) {
    const flag = unsigned === true || (typeof unsigned === 'string' && unsigned.trim().toLowerCase() === 'true') ? true
      : unsigned === false || (typeof unsigned === 'string' && unsigned.trim().toLowerCase() === 'false') ? false : undefined;
    if (flag === undefined) warnings.push(`${where}: _Unsigned ${JSON.stringify(unsigned)} is neither "true" nor "false"; ignored`);
    else if (!storedInteger) warnings.push(`${where}: _Unsigned on ${dataType} data is ignored (it applies to integers)`);
    else if (flag === dataType.startsWith('int')) meaning = FLIP_SIGN[dataType]!;
  }
  const scale = numberAttribute(attributes, 'scale_factor', where);
  const offset = numberAttribute(attributes, 'add_offset', where);
  const packed = scale !== undefined || offset !== undefined;
  const fillAttribute = attributes._FillValue;
  const fills = fillAttribute !== undefined ? numberList(fillAttribute, '_FillValue', where)
    : v2FillIsMissing(attributes, zarrFill) ? [Number(zarrFill)] : [];
  const missingValues = attributes.missing_value === undefined ? [] : numberList(attributes.missing_value, 'missing_value', where);
  const missing = [...new Set([...fills, ...missingValues].map((v) => inDomain(v, meaning)).filter((v) => !Number.isNaN(v)))];
  const masked = missing.length > 0 || (!storedInteger && (fills.length > 0 || missingValues.length > 0));
  const coding: CfValueCoding = {
    dataType: meaning,
    missing,
    ...(scale !== undefined ? { scale } : {}),
    ...(offset !== undefined ? { offset } : {}),
    ...(masked || packed ? { output: outputType(meaning, offset !== undefined) } : {}),
  };
  return { coding: Object.freeze(coding), warnings };
}

/**
 * The decoded type (xarray's rule without its dependence on the order of its coders): float16
 * and float32 data stay float32; 8- and 16-bit integers become float32 unless `add_offset` is
 * present (float64: an offset can be large next to the scaled steps); everything else float64.
 */
function outputType(dataType: string, hasOffset: boolean): 'float32' | 'float64' {
  const floatBytes = FLOAT_BYTES[dataType];
  if (floatBytes !== undefined) return floatBytes <= 4 ? 'float32' : 'float64';
  return INTEGER_BYTES[dataType]! <= 2 && !hasOffset ? 'float32' : 'float64';
}

/** A missing value as the stored type holds it: integers wrap into the (reinterpreted) type as NumPy's casts do; float32 rounds. */
function inDomain(value: number, dataType: string): number {
  const bytes = INTEGER_BYTES[dataType];
  if (bytes === undefined) return dataType === 'float64' ? value : Math.fround(value);
  if (!Number.isInteger(value) || bytes === 8) return value;
  const span = 2 ** (bytes * 8);
  const wrapped = ((value % span) + span) % span;
  return dataType.startsWith('uint') || wrapped < span / 2 ? wrapped : wrapped - span;
}

function asNumber(value: JsonValue): number | undefined {
  if (typeof value === 'number') return value;
  if (typeof value === 'bigint') return Number(value);
  if (value === 'NaN') return NaN;
  if (value === 'Infinity') return Infinity;
  if (value === '-Infinity') return -Infinity;
  return undefined;
}

/** A numeric attribute (a number, or a list of one number, as NetCDF attributes often are); INVALID_METADATA otherwise. */
function numberAttribute(attributes: Readonly<Record<string, JsonValue>>, name: string, where: string): number | undefined {
  const value = attributes[name];
  if (value === undefined || value === null) return undefined;
  const single = Array.isArray(value) && value.length === 1 ? value[0]! : value;
  const n = asNumber(single);
  if (n === undefined || !Number.isFinite(n)) {
    throw floeError('INVALID_METADATA', `${name} ${JSON.stringify(String(value))} is not a finite number, so the stored values cannot be unpacked; fix the attribute, or read with decode: 'none'`, { where });
  }
  return n;
}

function numberList(value: JsonValue, name: string, where: string): number[] {
  const items = Array.isArray(value) ? value : [value];
  return items.map((item) => {
    const n = asNumber(item);
    if (n === undefined) throw floeError('INVALID_METADATA', `${name} ${JSON.stringify(String(value))} is not a number or a list of numbers; fix the attribute, or read with decode: 'none'`, { where });
    return n;
  });
}
