// Downloads of the slice viewer's selection: CSV (one row per value, a column per kept dimension
// holding its coordinate label, then the value) and NumPy's .npy (the values' bytes with a header
// naming dtype and shape, which numpy.load reads). Pure: tested in Node, the page makes Blobs.
import { HOST_LITTLE_ENDIAN, swapBytesInPlace } from '../platform/host.ts';

export interface ExportDim {
  readonly name: string;
  /** One label per position along the dimension (coordinate values as text, or positions). */
  readonly labels: readonly string[];
}

/** A CSV field: quoted when it holds a comma, quote or line break; text a spreadsheet would run as a formula is prefixed with '. */
export function csvField(text: string): string {
  const safe = /^[=+\-@\t\r]/.test(text) && !/^-?(\d|\.\d|Infinity)/.test(text) ? `'${text}` : text;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/** The values (C order over `dims`) as CSV with a header row; missing values are empty fields. */
export function selectionCsv(name: string, dims: readonly ExportDim[], values: ArrayLike<number | bigint>): string {
  const lines = [[...dims.map((d) => d.name), name].map(csvField).join(',')];
  const sizes = dims.map((d) => d.labels.length);
  const total = sizes.reduce((a, b) => a * b, 1);
  const index = sizes.map(() => 0);
  for (let i = 0; i < total; i++) {
    const v = values[i];
    const text = v === undefined || (typeof v === 'number' && Number.isNaN(v)) ? '' : String(v);
    lines.push([...dims.map((d, k) => d.labels[index[k] ?? 0] ?? ''), text].map(csvField).join(','));
    for (let k = sizes.length - 1; k >= 0; k--) {
      index[k] = (index[k] ?? 0) + 1;
      if ((index[k] ?? 0) < (sizes[k] ?? 1)) break;
      index[k] = 0;
    }
  }
  return lines.join('\r\n') + '\r\n';
}

type NpyData = Float64Array | Float32Array | Int8Array | Uint8Array | Int16Array | Uint16Array | Int32Array | Uint32Array | BigInt64Array | BigUint64Array;

const DESCR: ReadonlyArray<readonly [new (n: number) => NpyData, string]> = [
  [Float64Array, '<f8'], [Float32Array, '<f4'], [Int8Array, '|i1'], [Uint8Array, '|u1'], [Int16Array, '<i2'], [Uint16Array, '<u2'],
  [Int32Array, '<i4'], [Uint32Array, '<u4'], [BigInt64Array, '<i8'], [BigUint64Array, '<u8'],
];

/** The values as a version 1.0 .npy file (little-endian, C order); undefined for data .npy cannot hold as is. */
export function npyBytes(data: unknown, shape: readonly number[]): Uint8Array | undefined {
  const descr = DESCR.find(([type]) => data instanceof type)?.[1];
  if (descr === undefined) return undefined;
  const typed = data as NpyData;
  const dims = shape.length === 1 ? `${shape[0]},` : shape.join(', ');
  let header = `{'descr': '${descr}', 'fortran_order': False, 'shape': (${dims}), }`;
  // Magic (6) + version (2) + length (2) + header + '\n', padded with spaces to a multiple of 64.
  const unpadded = 10 + header.length + 1;
  header += ' '.repeat((64 - (unpadded % 64)) % 64) + '\n';
  const out = new Uint8Array(10 + header.length + typed.byteLength);
  out.set([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 1, 0, header.length & 0xff, header.length >> 8]);
  for (let i = 0; i < header.length; i++) out[10 + i] = header.charCodeAt(i);
  out.set(new Uint8Array(typed.buffer, typed.byteOffset, typed.byteLength), 10 + header.length);
  // Typed arrays hold the host's byte order; the header says little-endian.
  const width = typed.BYTES_PER_ELEMENT;
  if (!HOST_LITTLE_ENDIAN && width > 1) swapBytesInPlace(out.subarray(10 + header.length), width as 2 | 4 | 8);
  return out;
}
