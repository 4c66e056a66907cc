// A NetCDF-3 header as Zarr v3 arrays whose chunks are byte ranges of the file. Pure: no I/O.
//
// Data is big-endian and C-ordered, so every array has one codec, `bytes` with endian big.
// A fixed variable's bytes are contiguous: one chunk, or when larger than `maxChunkBytes`
// regular chunks over those bytes (shape [1, ..., 1, k, n_{d+1}, ..., n_last]: each chunk one
// contiguous range). A record variable has one chunk per record (chunk shape [1, ...]; a record
// larger than `maxChunkBytes` is split the same way within the record); records of all record
// variables are interleaved, so record r of a variable starts at begin + r * recordSize, where the
// record size is the sum of the record variables' padded sizes, or the one record variable's
// unpadded size when there is only one (the format's special case).
// A regular chunk at the end of a split dimension is partial: its range reaches past the
// variable's bytes, which is harmless where the file holds those bytes (the part outside the
// array is never used); `tail` is set when the file ends first, and the caller stores that chunk
// natively, padded.
import { floeError } from '../../errors.ts';
import type { JsonValue } from '../json.ts';
import type { ArrayMetadataInput, Attributes } from '../zarr/metadata.ts';
import { isRecordVariable, NETCDF3_TYPES, type Netcdf3Attribute, type Netcdf3Header, type Netcdf3Variable } from './header.ts';

export const DEFAULT_MAX_CHUNK_BYTES = 8 * 1024 * 1024;

export interface Netcdf3Chunk {
  readonly index: readonly number[];
  readonly offset: number;
  readonly length: number;
  /** Bytes of the chunk that the file holds when it ends inside the chunk (store it natively, padded). */
  readonly tail?: number;
}

export interface Netcdf3ArrayPlan {
  readonly name: string;
  readonly metadata: ArrayMetadataInput;
  readonly chunkCount: number;
  /** The chunks in grid order (a generator: a file may have millions). */
  chunks(): Iterable<Netcdf3Chunk>;
}

export interface Netcdf3Layout {
  readonly attributes: Attributes;
  readonly arrays: readonly Netcdf3ArrayPlan[];
  /** The record count used (from the header, or from the file size when streaming). */
  readonly numRecords: number;
  readonly recordSize: number;
}

const pad4 = (n: number) => Math.ceil(n / 4) * 4;

/** JSON for an attribute value: text, one number, or a list; non-finite floats as Zarr's strings. */
export function attributeJson(attr: Netcdf3Attribute): JsonValue {
  if (typeof attr.value === 'string') return attr.value;
  const values = attr.value.map((v): JsonValue => (typeof v === 'bigint' ? (v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v) : Number.isFinite(v) ? v : Number.isNaN(v) ? 'NaN' : v > 0 ? 'Infinity' : '-Infinity'));
  return values.length === 1 ? (values[0] ?? null) : values;
}

function attributesOf(list: readonly Netcdf3Attribute[]): Attributes {
  const out: Record<string, JsonValue> = {};
  for (const a of list) out[a.name] = attributeJson(a);
  return out;
}

/** The Zarr fill value: the `_FillValue` attribute when it holds one value of the variable's type, else netCDF's default. */
function fillValueOf(v: Netcdf3Variable): JsonValue {
  const info = NETCDF3_TYPES[v.type];
  const attr = v.attributes.find((a) => a.name === '_FillValue');
  let value: number | bigint = info.defaultFill;
  if (attr && attr.type === v.type && typeof attr.value !== 'string' && attr.value.length === 1) value = attr.value[0] ?? value;
  if (typeof value === 'bigint') return value;
  if (Number.isNaN(value)) return 'NaN';
  if (!Number.isFinite(value)) return value > 0 ? 'Infinity' : '-Infinity';
  return value;
}

/** Lays out every variable of `header` in a file of `fileSize` bytes. */
export function netcdf3Layout(header: Netcdf3Header, fileSize: number, file: string, maxChunkBytes = DEFAULT_MAX_CHUNK_BYTES): Netcdf3Layout {
  const corrupt = (what: string, variable: string): never => {
    throw floeError('CORRUPT_OBJECT', `NetCDF-3 file ${file}: variable ${variable}: ${what}`, { where: file, details: { file, variable } });
  };
  const bytesOf = (v: Netcdf3Variable, dims: readonly number[]): number => {
    let n = NETCDF3_TYPES[v.type].size;
    for (const d of dims) {
      n *= d;
      if (!Number.isSafeInteger(n)) corrupt(`its size overflows (${dims.join(' x ')} elements)`, v.name);
    }
    return n;
  };
  const fixedDims = (v: Netcdf3Variable) => v.dimensionIds.slice(isRecordVariable(header, v) ? 1 : 0).map((id) => header.dimensions[id]?.length ?? 0);
  const recordVars = header.variables.filter((v) => isRecordVariable(header, v));
  const recordSizes = recordVars.map((v) => bytesOf(v, fixedDims(v)));
  const recordSize = recordVars.length === 1 ? (recordSizes[0] ?? 0) : recordSizes.reduce((a, b) => a + pad4(b), 0);
  const firstRecord = Math.min(...recordVars.map((v) => v.begin));
  let numRecords = header.numRecords ?? (recordSize > 0 && recordVars.length > 0 ? Math.max(0, Math.floor((fileSize - firstRecord) / recordSize)) : 0);
  if (recordVars.length === 0) numRecords = 0;
  const arrays = header.variables.map((v): Netcdf3ArrayPlan => {
    const info = NETCDF3_TYPES[v.type];
    const record = isRecordVariable(header, v);
    const inner = fixedDims(v);
    const bytes = bytesOf(v, inner);
    if (record && numRecords > 0 && (numRecords - 1) * recordSize + bytes + v.begin > fileSize) {
      corrupt(`its ${numRecords} records (every ${recordSize} bytes from byte ${v.begin}) run past the end of the file (${fileSize} bytes)`, v.name);
    }
    if (!record && bytes > 0 && v.begin + bytes > fileSize) corrupt(`its data (${bytes} bytes at byte ${v.begin}) runs past the end of the file (${fileSize} bytes)`, v.name);
    const split = splitContiguous(inner, info.size, maxChunkBytes);
    const shape = record ? [numRecords, ...inner] : inner;
    const chunkShape = record ? [1, ...split.chunkShape] : split.chunkShape;
    const names = v.dimensionIds.map((id) => header.dimensions[id]?.name ?? null);
    const empty = shape.some((n) => n === 0);
    const perRecord = empty ? 0 : split.count;
    const metadata: ArrayMetadataInput = {
      shape,
      chunkShape: chunkShape.map((c) => Math.max(1, c)),
      dataType: info.dataType,
      fillValue: fillValueOf(v) as NonNullable<ArrayMetadataInput['fillValue']>,
      codecs: [info.size === 1 ? { name: 'bytes' } : { name: 'bytes', configuration: { endian: 'big' } }],
      attributes: attributesOf(v.attributes),
      dimensionNames: names,
    };
    return {
      name: v.name,
      metadata,
      chunkCount: record ? numRecords * perRecord : perRecord,
      *chunks() {
        if (empty) return;
        const records = record ? numRecords : 1;
        for (let r = 0; r < records; r++) {
          const base = v.begin + r * recordSize;
          for (const c of split.chunks()) {
            const offset = base + c.offset;
            const index = record ? [r, ...c.index] : c.index;
            const tail = offset + split.chunkBytes > fileSize ? fileSize - offset : undefined;
            yield tail === undefined ? { index, offset, length: split.chunkBytes } : { index, offset, length: split.chunkBytes, tail };
          }
        }
      },
    };
  });
  return { attributes: attributesOf(header.attributes), arrays, numRecords, recordSize };
}

interface Split {
  readonly chunkShape: number[];
  readonly chunkBytes: number;
  readonly count: number;
  /** Chunk indices (over `dims`) and byte offsets from the variable's start. */
  chunks(): Iterable<{ index: number[]; offset: number }>;
}

/**
 * Regular chunks over a C-ordered block of `dims`: the whole block when it fits `maxBytes`, else
 * [1, ..., 1, k, rest...] with the largest k fitting (a divisor of that dimension when one is at
 * least half of k, so no chunk is partial).
 */
export function splitContiguous(dims: readonly number[], elementSize: number, maxBytes: number): Split {
  const rank = dims.length;
  const total = dims.reduce((a, b) => a * b, elementSize);
  let d = 0;
  let innerBytes = total;
  if (total > maxBytes) {
    // The first dimension whose trailing block fits.
    innerBytes = elementSize;
    for (let i = rank - 1; i >= 0; i--) innerBytes *= dims[i] ?? 1;
    for (d = 0; d < rank; d++) {
      innerBytes /= dims[d] ?? 1;
      if (innerBytes <= maxBytes) break;
    }
    if (d === rank) d = rank - 1; // one element larger than maxBytes cannot happen (elementSize <= 8)
  }
  const chunkShape = dims.map((n, i) => (total <= maxBytes ? n : i < d ? 1 : i > d ? n : 0));
  if (total > maxBytes) {
    const n = dims[d] ?? 1;
    let k = Math.max(1, Math.floor(maxBytes / innerBytes));
    for (let j = k; j >= Math.ceil(k / 2); j--) {
      if (n % j === 0) {
        k = j;
        break;
      }
    }
    chunkShape[d] = Math.min(k, n);
  }
  const grid = dims.map((n, i) => Math.ceil(n / Math.max(1, chunkShape[i] ?? 1)));
  const count = grid.reduce((a, b) => a * b, 1);
  const chunkBytes = chunkShape.reduce((a, b) => a * b, elementSize);
  return {
    chunkShape,
    chunkBytes,
    count,
    *chunks() {
      if (rank === 0) {
        yield { index: [], offset: 0 };
        return;
      }
      const index = grid.map(() => 0);
      for (let i = 0; i < count; i++) {
        // Element offset of the chunk's first element in C order.
        let flat = 0;
        for (let j = 0; j < rank; j++) flat = flat * (dims[j] ?? 1) + (index[j] ?? 0) * (chunkShape[j] ?? 1);
        yield { index: [...index], offset: flat * elementSize };
        for (let j = rank - 1; j >= 0; j--) {
          index[j] = (index[j] ?? 0) + 1;
          if ((index[j] ?? 0) < (grid[j] ?? 1)) break;
          index[j] = 0;
        }
      }
    },
  };
}
