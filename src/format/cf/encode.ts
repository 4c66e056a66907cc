// CF encoding for writes (`set(..., { encode: 'cf' })`): physical values and dates back into the
// stored numbers of a variable, the inverse of decoding (docs/cf.md, "Encoding"). As xarray
// encodes: subtract add_offset, divide by scale_factor (in float64), NaN to the fill value,
// round half to even into integer types. Unlike xarray, a value that does not fit the stored type
// is refused with an error naming its index, never wrapped.
import { floeError } from '../../errors.ts';
import type { TypedArray } from '../zarr/data-types.ts';
import { calendar } from './calendar.ts';
import { CfDate } from './cf-date.ts';
import { encodeTime, encodeTimeExact, parseDateText } from './time.ts';
import type { CfVariable } from './variable.ts';

/** What `encode: 'cf'` writes from: physical numbers, or dates (CfDates, Dates, ISO text on the variable's calendar; null: missing) for a time variable. */
export type CfWriteValues = ArrayLike<number> | readonly (CfDate | Date | string | null)[];

const RANGES: Readonly<Record<string, readonly [number, number]>> = {
  int8: [-128, 127], uint8: [0, 255], int16: [-32768, 32767], uint16: [0, 65535],
  int32: [-2147483648, 2147483647], uint32: [0, 4294967295],
  int64: [-(2 ** 63), 2 ** 63], uint64: [0, 2 ** 64],
};
const TYPED: Readonly<Record<string, new (n: number) => TypedArray>> = {
  int8: Int8Array, uint8: Uint8Array, int16: Int16Array, uint16: Uint16Array, int32: Int32Array, uint32: Uint32Array,
  int64: BigInt64Array, uint64: BigUint64Array, float32: Float32Array, float16: Float32Array, float64: Float64Array,
};

/** NumPy's `around`: halves to the even neighbour. */
function roundHalfEven(x: number): number {
  const r = Math.round(x);
  return Math.abs(x - Math.trunc(x)) === 0.5 && r % 2 !== 0 ? r - 1 : r;
}

/**
 * The stored values (a typed array of the variable's meaning type — the unsigned one under
 * `_Unsigned`; the caller views it as the stored type) for `values`. INVALID_ARGUMENT naming the
 * index for a value that does not fit, a NaN or missing date with no fill value to stand for it,
 * or a date of another calendar.
 */
export function encodeValues(variable: CfVariable, values: CfWriteValues, where: string): TypedArray {
  const coding = variable.values;
  const type = coding.dataType;
  const Typed = TYPED[type];
  if (Typed === undefined) throw floeError('UNSUPPORTED', `encode: 'cf' writes numeric arrays; this one is ${type}`, { where });
  const n = values.length;
  const out = new Typed(n);
  const range = RANGES[type];
  const fill = coding.missing[0];
  const { scale, offset } = coding;
  const time = variable.time;
  const exactTime = time !== undefined && range !== undefined && scale === undefined && offset === undefined;
  const bad = (i: number, why: string) => floeError('INVALID_ARGUMENT', `value at index ${i} ${why}`, { where });
  for (let i = 0; i < n; i++) {
    const item = (values as ArrayLike<unknown>)[i];
    let v: number;
    if (time) {
      if (item === null || item === undefined) v = NaN;
      else {
        const date = asDate(item, time.calendar, i, bad);
        if (exactTime) {
          const big = encodeTimeExact(time, date);
          if (out instanceof BigInt64Array || out instanceof BigUint64Array) {
            if (big < BigInt(range[0]) || big >= BigInt(range[1])) throw bad(i, `(${date.toString()}, ${big} ${time.unit}) does not fit ${type}`);
            out[i] = big;
            continue;
          }
          v = Number(big);
        } else v = encodeTime(time, date);
      }
    } else {
      if (typeof item !== 'number') throw bad(i, `is ${typeof item}, not a number`);
      v = item;
    }
    const missingInput = Number.isNaN(v);
    if (missingInput) {
      if (fill === undefined) {
        if (range === undefined) {
          out[i] = NaN;
          continue;
        }
        throw bad(i, `is missing (NaN or null), and ${where} has no _FillValue or missing_value to store it as`);
      }
      v = fill;
    } else {
      if (offset !== undefined) v -= offset;
      if (scale !== undefined) v /= scale;
    }
    if (range === undefined) {
      out[i] = v;
      continue;
    }
    const r = roundHalfEven(v);
    if (!missingInput && coding.missing.includes(r)) {
      throw bad(i, `(${String(item)}) encodes to ${r}, a fill or missing value: it would read back as missing`);
    }
    if (!(r >= range[0] && r < range[1] + (type.endsWith('64') ? 0 : 1))) throw bad(i, `(${item instanceof Object ? String(item) : item}) is ${v} stored, which does not fit ${type}`);
    if (out instanceof BigInt64Array || out instanceof BigUint64Array) out[i] = BigInt(r);
    else out[i] = r;
  }
  return out;
}

function asDate(item: unknown, name: CfDate['calendar'], i: number, bad: (i: number, why: string) => Error): CfDate {
  if (item instanceof Date) {
    if (!calendar(name).realWorld) throw bad(i, `is a Date, but the ${name} calendar has no JS Dates: pass a CfDate`);
    const ms = item.getTime();
    if (!Number.isFinite(ms)) throw bad(i, 'is an invalid Date');
    const day = Math.floor(ms / 86_400_000);
    return CfDate.fromDayNumber(name, day, (ms - day * 86_400_000) * 1000);
  }
  if (typeof item === 'string') {
    const date = parseDateText(item, name);
    if (typeof date === 'string') throw bad(i, `(${JSON.stringify(item)}) is not a date of the ${name} calendar: ${date}`);
    return date;
  }
  if (item instanceof CfDate) {
    if (item.calendar === name) return item;
    if (calendar(name).realWorld && calendar(item.calendar).realWorld) return CfDate.fromDayNumber(name, item.dayNumber, item.microOfDay);
    throw bad(i, `is a ${item.calendar} date; this variable counts ${name} days`);
  }
  throw bad(i, 'is not a CfDate, Date, date text or null');
}
