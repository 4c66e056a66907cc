// One variable's CF decoding, worked out once from its attributes: the value coding (packing,
// missing values, _Unsigned), time or duration units, structured metadata and the warnings of
// anything left undecoded. `decodeValues` applies it to a whole stored array (the engine's read
// path fuses the value part into its chunk copies instead).
import type { JsonValue } from '../json.ts';
import type { TypedArray } from '../zarr/data-types.ts';
import type { CfDate } from './cf-date.ts';
import { cfMetadata, type CfMetadata } from './metadata.ts';
import { decodeTime, durationUnit, isRefusal, parseTimeUnits, type CfTimeCoding } from './time.ts';
import { reinterpret } from './kernel.ts';
import { valueCoding, valueKernel, type CfValueCoding } from './values.ts';

export { reinterpret } from './kernel.ts';

/** How a variable's stored values decode (docs/cf.md): its value coding, time or duration, metadata, and what was left undecoded. */
export interface CfVariable {
  readonly values: CfValueCoding;
  /** Present when `units` is "UNIT since DATE" on a calendar Floe decodes: values become CfDates. */
  readonly time?: CfTimeCoding;
  /** Present when `units` is a bare time unit ("hours"): values stay numbers of that unit. */
  readonly duration?: { readonly unit: string; readonly unitMicros: number };
  readonly metadata: CfMetadata;
  /** What was left undecoded, and why. */
  readonly warnings: readonly string[];
}

export interface CfVariableInput {
  readonly attributes: Readonly<Record<string, JsonValue>>;
  /** The stored Zarr v3 data type name. */
  readonly dataType: string;
  /** A Zarr v2 array's fill value (undefined for v3 arrays and v2's null): see valueCoding. */
  readonly zarrFill?: number | bigint;
  /**
   * A bounds variable's parent's `units` and `calendar` (CF 7.1: bounds inherit them; xarray
   * copies them too); used when the variable has none of its own.
   */
  readonly inherit?: { readonly units?: JsonValue | undefined; readonly calendar?: JsonValue | undefined };
  readonly where: string;
}

export function cfVariable(input: CfVariableInput): CfVariable {
  const { attributes, dataType, zarrFill, where } = input;
  const { coding, warnings: valueWarnings } = valueCoding(attributes, dataType, zarrFill, where);
  const { metadata, warnings: metadataWarnings } = cfMetadata(attributes, where);
  const warnings = [...valueWarnings, ...metadataWarnings];
  const units = attributes.units ?? input.inherit?.units;
  const calendar = attributes.calendar ?? (attributes.units === undefined ? input.inherit?.calendar : undefined);
  const out: { -readonly [K in keyof CfVariable]: CfVariable[K] } = { values: coding, metadata, warnings };
  const numeric = coding.output !== undefined || /^(u?int|float)\d+$/.test(dataType);
  const time = numeric ? parseTimeUnits(units, calendar, where) : undefined;
  if (isRefusal(time)) warnings.push(time.warning);
  else if (time) out.time = time;
  else if (numeric) {
    const duration = durationUnit(units);
    if (duration) out.duration = duration;
  }
  return Object.freeze(out);
}

/** The data type a decoded read of the variable holds: the unpacked float type, the `_Unsigned` twin, or the stored type (`storedDtype`). */
export function decodedDataType(variable: CfVariable, storedDtype: string): string {
  const coding = variable.values;
  if (coding.output !== undefined) return coding.output;
  return /^u?int\d+$/.test(storedDtype) ? coding.dataType : storedDtype;
}

/** A stored array (C order, any shape) decoded: float values, CfDates (null where missing) for time, or the values unchanged. */
export function decodeValues(variable: CfVariable, stored: TypedArray, where = ''): TypedArray | (CfDate | null)[] {
  const values = applyValueCoding(variable.values, stored);
  const time = variable.time;
  if (!time) return values;
  const out = new Array<CfDate | null>(values.length);
  for (let i = 0; i < values.length; i++) out[i] = decodeTime(time, values[i]!, where ? `${where}[${i}]` : `[${i}]`);
  return out;
}

/** `stored` viewed as the coding's data type (`_Unsigned`), then unpacked into its output type when it has one. */
export function applyValueCoding(coding: CfValueCoding, stored: TypedArray): TypedArray {
  const viewed = reinterpret(stored, coding.dataType);
  if (coding.output === undefined) return viewed;
  const out = coding.output === 'float32' ? new Float32Array(stored.length) : new Float64Array(stored.length);
  valueKernel(coding)(viewed, 0, out, 0, stored.length);
  return out;
}
