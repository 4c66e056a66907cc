// Turning array data into plain JSON-comparable values, the way the conformance files write them:
// 64-bit integers as decimal strings, NaN/Infinity as strings, complex as [re, im] pairs.
import type { ArrayData, TypedArray } from '../../src/format/zarr/data-types.ts';

export type Plain = number | string | boolean | Plain[];

export function toPlainValues(data: ArrayData, dataType: string): Plain[] {
  const lanes = dataType.startsWith('complex') ? 2 : 1;
  const out: Plain[] = [];
  const n = data.length / lanes;
  for (let i = 0; i < n; i++) {
    if (lanes === 2) out.push([plainNumber(data[2 * i]!), plainNumber(data[2 * i + 1]!)]);
    else out.push(plainScalar(data[i]!, dataType));
  }
  return out;
}

function plainScalar(v: number | bigint | string | TypedArray, dataType: string): Plain {
  if (ArrayBuffer.isView(v) && v.constructor !== Uint8Array) return Array.from(v as ArrayLike<number | bigint>, plainNumber); // vlen-array elements
  if (v instanceof Uint8Array) return Buffer.from(v).toString('hex'); // binary elements, as hex
  if (typeof v === 'bigint') return v.toString();
  if (typeof v === 'string') return v;
  if (dataType === 'bool') return v !== 0;
  return plainNumber(v);
}

function plainNumber(v: number | bigint | string | TypedArray): Plain {
  if (typeof v !== 'number') return String(v);
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return 'Infinity';
  if (v === -Infinity) return '-Infinity';
  return v;
}

/** Normalises expected values from a fixture file (numbers that are strings stay strings). */
export function normalizeExpected(values: unknown[], dataType: string): Plain[] {
  return values.map((v) => {
    if (Array.isArray(v)) return v.map((x) => (typeof x === 'number' ? x : String(x))) as Plain[];
    if (dataType === 'bool') return Boolean(v);
    if ((dataType === 'int64' || dataType === 'uint64') && typeof v === 'number') return String(v);
    return v as Plain;
  });
}
