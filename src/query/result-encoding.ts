// How the query server sends results. Small results go as JSON; larger ones as one binary body:
//   [u32 little-endian header length][header JSON, space-padded to a multiple of 8]
//   [each array's raw little-endian element bytes, each padded to a multiple of 8]
// The header lists every array's path, dtype, dims, shape, byteOffset (from the end of the
// header) and byteLength, plus the fetch report, so a client can view each array in place.
import type { ArrayData, TypedArray } from '../format/zarr/data-types.ts';
import { parseJson } from '../format/json.ts';
import type { ArrayResult, ExecutionReport } from './result-types.ts';

export const BINARY_CONTENT_TYPE = 'application/vnd.floe.query-result';

export function isBinaryCapable(arrays: readonly ArrayResult[]): boolean {
  return arrays.every((a) => ArrayBuffer.isView(a.data));
}

export function encodeJson(arrays: readonly ArrayResult[], report: ExecutionReport): string {
  return JSON.stringify({
    arrays: arrays.map((a) => {
      const data = a.cf?.dates ? a.cf.dates.map((d) => (d === null ? null : d.toString())) : jsonData(a.data, a.elementDtype !== undefined);
      const stored = a.cf?.stored === undefined ? {} : { stored: jsonData(a.cf.stored, false) };
      return { path: a.path, dtype: a.dtype, ...elementOf(a), ...cfHeader(a), dims: a.dims, shape: a.shape, data, ...stored };
    }),
    report,
  });
}

/**
 * What a decoded array's entry says beside its values (docs/serving.md): the stored dtype, a
 * time variable's units and calendar (its JSON values are then ISO dates on that calendar), a
 * duration's unit, flags' meanings.
 */
function cfHeader(a: ArrayResult): Record<string, unknown> {
  if (a.cf === undefined) return {};
  const { variable, storedDtype } = a.cf;
  const time = variable.time;
  const flags = variable.metadata.flags;
  return {
    storedDtype,
    ...(time ? { units: time.units, calendar: time.calendar } : {}),
    ...(variable.duration ? { units: variable.duration.unit } : {}),
    ...(flags ? { flags } : {}),
  };
}

function elementOf(a: ArrayResult): { elementDtype?: string } {
  return a.elementDtype === undefined ? {} : { elementDtype: a.elementDtype };
}

/** Strings as they are, binary elements as base64, vlen-array elements as lists of numbers. */
function jsonData(data: ArrayData, typedElements: boolean): unknown[] {
  if (!Array.isArray(data)) return numbers(data);
  return (data as readonly (string | TypedArray)[]).map((v) => (typeof v === 'string' ? v : typedElements ? numbers(v) : Buffer.from(v as Uint8Array).toString('base64')));
}

/** bigints as decimal strings (JSON numbers lose precision past 2^53); NaN/Infinity as strings. */
function numbers(data: TypedArray): unknown[] {
  return Array.from(data as ArrayLike<number | bigint>, (v) => (typeof v === 'bigint' ? v.toString() : Number.isFinite(v) ? v : String(v)));
}

const pad8 = (n: number) => (n + 7) & ~7;

/** The binary form as one buffer (a copy of every array; the server sends the parts instead). */
export function encodeBinary(arrays: readonly ArrayResult[], report: ExecutionReport): Buffer {
  return Buffer.concat(encodeBinaryParts(arrays, report));
}

/**
 * The binary form as pieces to write in order: the header, then each array's bytes as a view of
 * the result itself (no copy) followed by its zero padding.
 */
export function encodeBinaryParts(arrays: readonly ArrayResult[], report: ExecutionReport): Uint8Array[] {
  let at = 0;
  const views: Uint8Array[] = [];
  const entries = arrays.map((a) => {
    const v = a.data as Exclude<ArrayData, unknown[]>;
    views.push(new Uint8Array(v.buffer, v.byteOffset, v.byteLength));
    const entry = { path: a.path, dtype: a.dtype, ...cfHeader(a), dims: a.dims, shape: a.shape, byteOffset: at, byteLength: v.byteLength };
    at += pad8(v.byteLength);
    return entry;
  });
  const rawHeader = Buffer.from(JSON.stringify({ arrays: entries, report }));
  const headerLength = pad8(4 + rawHeader.length) - 4;
  const head = Buffer.alloc(4 + headerLength, 0x20);
  head.writeUInt32LE(headerLength, 0);
  rawHeader.copy(head, 4);
  const parts: Uint8Array[] = [head];
  for (const view of views) {
    parts.push(view);
    const padding = pad8(view.byteLength) - view.byteLength;
    if (padding > 0) parts.push(new Uint8Array(padding));
  }
  return parts;
}

export interface DecodedBinary {
  header: {
    arrays: {
      path: string; dtype: string; dims: string[]; shape: number[]; byteOffset: number; byteLength: number;
      /** Under CF decoding (docs/cf.md): the stored dtype, a time's units and calendar, a duration's units, flags. */
      storedDtype?: string; units?: string; calendar?: string; flags?: unknown;
    }[];
    report: ExecutionReport;
  };
  body: Uint8Array;
}

/** The client side of encodeBinary (used by tests and any Node client). */
export function decodeBinary(bytes: Uint8Array): DecodedBinary {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const headerLength = view.getUint32(0, true);
  const header = parseJson(bytes.subarray(4, 4 + headerLength), 'the binary result header', { exactIntegers: false }) as unknown as DecodedBinary['header'];
  return { header, body: bytes.subarray(4 + headerLength) };
}
