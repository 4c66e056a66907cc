// Fill values in every JSON form the v3 spec allows, kept bit-exact.
// A fill value is held as one element in memory form (`memory`) plus its canonical JSON
// (`json`): NaN with the standard payload is written "NaN", other NaNs as "0x..." hex, so a
// payload such as 0x7fc00001 survives a read/write round trip.
import { floeError } from '../../errors.ts';
import { checkedAt } from '../indexing.ts';
import type { JsonValue } from '../json.ts';
import type { ArrayData, DataType } from './data-types.ts';
import { halfToNumber, numberToHalf } from './float16.ts';
import { fromBase64, toBase64 } from '../../platform/host.ts';

/** An array's fill value: as written in zarr.json, and one element in memory form. */
export interface FillValue {
  readonly json: JsonValue;
  /** One element in memory form (`lanes` numbers, or a one-string array). */
  readonly memory: ArrayData;
}

/** What a caller may pass as a fill value: any JSON form, or JS numbers/bigints/NaN directly. */
export type FillValueInput = JsonValue | Uint8Array | readonly (number | string)[];

const INT_RANGES: Record<string, readonly [bigint, bigint]> = {
  int8: [-128n, 127n],
  int16: [-32768n, 32767n],
  int32: [-2147483648n, 2147483647n],
  int64: [-(2n ** 63n), 2n ** 63n - 1n],
  uint8: [0n, 255n],
  uint16: [0n, 65535n],
  uint32: [0n, 4294967295n],
  uint64: [0n, 2n ** 64n - 1n],
};

export function defaultFillValue(dt: DataType): FillValue {
  switch (dt.kind) {
    case 'bool':
      return parseFillValue(dt, false);
    case 'complex':
      return parseFillValue(dt, [0, 0]);
    case 'raw':
      return parseFillValue(dt, new Array<number>(dt.itemSize).fill(0));
    case 'string':
      return parseFillValue(dt, '');
    case 'binary':
      return parseFillValue(dt, '');
    default:
      return parseFillValue(dt, 0);
  }
}

export function parseFillValue(dt: DataType, value: FillValueInput | undefined, where?: string): FillValue {
  const bad = (why: string): never => {
    throw floeError('INVALID_METADATA', `fill_value ${show(value)} is not valid for data type ${dt.name}: ${why}`, {
      where,
    });
  };
  const memory = dt.allocate(1);
  switch (dt.kind) {
    case 'bool':
      if (typeof value !== 'boolean') bad('expected true or false');
      (memory as Uint8Array)[0] = value ? 1 : 0;
      return freeze(value as boolean, memory);
    case 'int':
    case 'uint': {
      const n = typeof value === 'bigint' ? value : typeof value === 'number' && Number.isInteger(value) ? BigInt(value) : bad('expected an integer');
      const range = INT_RANGES[dt.name];
      // Every core integer type has a range; a type without one is a bug in this table.
      if (range === undefined) throw floeError('UNSUPPORTED', `no value range known for integer type ${dt.name}`, { where });
      const [lo, hi] = range;
      if (n < lo || n > hi) bad(`out of range [${lo}, ${hi}]`);
      if (dt.itemSize === 8) (memory as BigInt64Array | BigUint64Array)[0] = n;
      else (memory as Int32Array)[0] = Number(n);
      return freeze(Number.isSafeInteger(Number(n)) ? Number(n) : n, memory);
    }
    case 'float': {
      const json = setFloat(dt, memory, 0, value, bad);
      return freeze(json, memory);
    }
    case 'complex': {
      if (!Array.isArray(value) || value.length !== 2) bad('expected a two-element array [real, imaginary]');
      const parts = value as readonly FillValueInput[];
      return freeze([setFloat(dt, memory, 0, parts[0], bad), setFloat(dt, memory, 1, parts[1], bad)], memory);
    }
    case 'raw': {
      const bytes = value instanceof Uint8Array ? Array.from(value) : value;
      if (!Array.isArray(bytes) || bytes.length !== dt.itemSize) bad(`expected an array of ${dt.itemSize} bytes`);
      (bytes as unknown[]).forEach((b, i) => {
        if (typeof b !== 'number' || !Number.isInteger(b) || b < 0 || b > 255) bad('each byte must be an integer 0..255');
        (memory as Uint8Array)[i] = b as number;
      });
      return freeze(Array.from(memory as Uint8Array), memory);
    }
    case 'string':
      if (typeof value !== 'string') bad('expected a string');
      (memory as string[])[0] = value as string;
      return freeze(value as string, memory);
    case 'binary': {
      const bytes = binaryFill(value, bad);
      (memory as Uint8Array[])[0] = bytes;
      return freeze(toBase64(bytes), memory);
    }
  }
}

/**
 * Binary fill values: a base64 string (zarr-python 3's JSON form, which Floe also writes), an
 * array of byte values, or a Uint8Array.
 */
function binaryFill(value: unknown, bad: (why: string) => never): Uint8Array {
  if (value instanceof Uint8Array) return value.slice();
  if (typeof value === 'string') {
    if (!/^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(value)) bad('expected base64 text');
    return fromBase64(value);
  }
  if (!Array.isArray(value) || !value.every((b) => typeof b === 'number' && Number.isInteger(b) && b >= 0 && b <= 255)) {
    bad('expected base64 text or an array of byte values 0..255');
  }
  return Uint8Array.from(value as number[]);
}

/** Writes one float lane from a JSON/JS value and returns its canonical JSON form. */
function setFloat(dt: DataType, memory: ArrayData, lane: number, value: unknown, bad: (why: string) => never): JsonValue {
  const bits = dt.kind === 'complex' ? (dt.itemSize / 2) * 8 : dt.itemSize * 8;
  const view = memory as Float32Array | Float64Array;
  if (typeof value === 'string' && /^0x[0-9a-fA-F]+$/.test(value)) {
    if (value.length !== 2 + bits / 4) bad(`a hex fill value for ${bits}-bit floats needs ${bits / 4} hex digits`);
    writeBits(view, lane, bits, BigInt(value));
  } else if (typeof value === 'number' || typeof value === 'bigint') {
    view[lane] = bits === 16 ? halfToNumber(numberToHalf(Number(value))) : Number(value);
  } else if (value === 'NaN' || value === 'Infinity' || value === '-Infinity') {
    view[lane] = Number(value);
  } else {
    bad('expected a number, "NaN", "Infinity", "-Infinity" or a "0x..." bit pattern');
  }
  return canonicalFloatJson(view, lane, bits);
}

function writeBits(view: Float32Array | Float64Array, lane: number, bits: number, pattern: bigint): void {
  if (bits === 16) view[lane] = halfToNumber(Number(pattern));
  else if (bits === 32) new Uint32Array(view.buffer, view.byteOffset + lane * 4, 1)[0] = Number(pattern);
  else new BigUint64Array(view.buffer, view.byteOffset + lane * 8, 1)[0] = pattern;
}

/** Number, "NaN"/"Infinity"/"-Infinity", or hex for NaNs with a non-standard payload. */
function canonicalFloatJson(view: Float32Array | Float64Array, lane: number, bits: number): JsonValue {
  const v = floatLane(view, lane);
  if (v === Infinity) return 'Infinity';
  if (v === -Infinity) return '-Infinity';
  if (!Number.isNaN(v)) return v;
  const pattern = readBits(view, lane, bits);
  const standard = bits === 16 ? 0x7e00n : bits === 32 ? 0x7fc00000n : 0x7ff8000000000000n;
  return pattern === standard ? 'NaN' : '0x' + pattern.toString(16).padStart(bits / 4, '0');
}

function readBits(view: Float32Array | Float64Array, lane: number, bits: number): bigint {
  if (bits === 16) return BigInt(numberToHalf(floatLane(view, lane)));
  const bytes = new DataView(view.buffer, view.byteOffset, view.byteLength);
  // The platform's byte order, as the typed array that holds the lane uses.
  if (bits === 32) return BigInt(bytes.getUint32(lane * 4, LITTLE_ENDIAN));
  return bytes.getBigUint64(lane * 8, LITTLE_ENDIAN);
}

const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** Lane `lane` (0, or 1 for a complex imaginary part) of a one-element fill's memory. */
function floatLane(view: Float32Array | Float64Array, lane: number): number {
  return checkedAt(view, lane, 'INVALID_ARGUMENT', 'fill value lanes');
}

function freeze(json: JsonValue, memory: ArrayData): FillValue {
  return Object.freeze({ json, memory });
}

function show(v: unknown): string {
  if (typeof v === 'bigint') return v.toString();
  if (v instanceof Uint8Array) return `[${Array.from(v).join(',')}]`;
  return JSON.stringify(v) ?? String(v);
}
