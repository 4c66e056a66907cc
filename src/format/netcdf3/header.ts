// The header of a NetCDF-3 file (classic `CDF\x01`, 64-bit offset `CDF\x02`, and CDF-5
// `CDF\x05`), read from its format specification: magic, record count, then the dimension,
// global attribute and variable lists, all big-endian. Counts and lengths are 4 bytes in the
// first two versions and 8 in CDF-5; variable offsets are 4 bytes in the classic format and 8 in
// the others. Names and attribute values are padded to 4 bytes.
//
// Pure: the caller reads a prefix of the file and passes its bytes with the file's size. When the
// header runs past that prefix the result says so (`incomplete`) and how much to read; a header
// that runs past the end of the file, or declares counts the file cannot hold, is CORRUPT_OBJECT
// naming the file and the entry. Every count is bounded by the bytes left in the file before
// anything is allocated for it.
import { floeError } from '../../errors.ts';

export type Netcdf3Version = 1 | 2 | 5;

/** NetCDF's external types: 1-6 in every version, 7-11 in CDF-5 only. */
export type Netcdf3Type = 1 | 2 | 3 | 4 | 5 | 6 | 7 | 8 | 9 | 10 | 11;

export interface Netcdf3TypeInfo {
  readonly name: string;
  readonly size: number;
  /** The Zarr v3 data type. NC_CHAR is read as bytes (uint8). */
  readonly dataType: string;
  /** NetCDF's default fill value for the type. */
  readonly defaultFill: number | bigint;
}

/** The types, by code. Default fills are netCDF's NC_FILL_* values. */
export const NETCDF3_TYPES: Readonly<Record<Netcdf3Type, Netcdf3TypeInfo>> = {
  1: { name: 'byte', size: 1, dataType: 'int8', defaultFill: -127 },
  2: { name: 'char', size: 1, dataType: 'uint8', defaultFill: 0 },
  3: { name: 'short', size: 2, dataType: 'int16', defaultFill: -32767 },
  4: { name: 'int', size: 4, dataType: 'int32', defaultFill: -2147483647 },
  5: { name: 'float', size: 4, dataType: 'float32', defaultFill: 9.969209968386869e36 },
  6: { name: 'double', size: 8, dataType: 'float64', defaultFill: 9.969209968386869e36 },
  7: { name: 'ubyte', size: 1, dataType: 'uint8', defaultFill: 255 },
  8: { name: 'ushort', size: 2, dataType: 'uint16', defaultFill: 65535 },
  9: { name: 'uint', size: 4, dataType: 'uint32', defaultFill: 4294967295 },
  10: { name: 'int64', size: 8, dataType: 'int64', defaultFill: -9223372036854775806n },
  11: { name: 'uint64', size: 8, dataType: 'uint64', defaultFill: 18446744073709551614n },
};

export interface Netcdf3Dimension {
  readonly name: string;
  /** 0: the record (unlimited) dimension. */
  readonly length: number;
}

/** A char attribute is text (trailing NULs dropped); numbers as numbers (64-bit ints as bigint). */
export type Netcdf3AttributeValue = string | readonly (number | bigint)[];

export interface Netcdf3Attribute {
  readonly name: string;
  readonly type: Netcdf3Type;
  readonly value: Netcdf3AttributeValue;
}

export interface Netcdf3Variable {
  readonly name: string;
  readonly dimensionIds: readonly number[];
  readonly attributes: readonly Netcdf3Attribute[];
  readonly type: Netcdf3Type;
  /** As stored (may be wrong for variables over 4 GiB: layouts compute sizes from the shape). */
  readonly vsize: number;
  /** Byte offset of the variable's data (of its first record, for a record variable). */
  readonly begin: number;
}

export interface Netcdf3Header {
  readonly version: Netcdf3Version;
  /** Records written; null when the file is streaming (its count follows from its size). */
  readonly numRecords: number | null;
  readonly dimensions: readonly Netcdf3Dimension[];
  readonly attributes: readonly Netcdf3Attribute[];
  readonly variables: readonly Netcdf3Variable[];
  /** Bytes the header takes. */
  readonly length: number;
}

export type Netcdf3HeaderResult = { readonly kind: 'header'; readonly header: Netcdf3Header } | { readonly kind: 'incomplete'; readonly needBytes: number };

/** The longest header read: far beyond real files (netCDF-C's own are a few KiB to a few MiB). */
export const MAX_NETCDF3_HEADER_BYTES = 256 * 1024 * 1024;
/** netCDF-C's NC_MAX_NAME is 256 bytes; names longer than this are refused as corrupt. */
const MAX_NAME_BYTES = 1024;
const MAX_RANK = 1024;

const TAG_DIMENSION = 0x0a;
const TAG_VARIABLE = 0x0b;
const TAG_ATTRIBUTE = 0x0c;

/** Thrown inside the parser when the prefix read so far ends before the header does. */
class NeedMore {
  constructor(readonly bytes: number) {}
}

class Cursor {
  pos = 0;
  private readonly view: DataView;
  readonly wide: boolean;
  constructor(readonly bytes: Uint8Array, readonly fileSize: number, readonly file: string, readonly version: Netcdf3Version) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.wide = version === 5;
  }

  corrupt(what: string, entry?: string): never {
    throw floeError('CORRUPT_OBJECT', `NetCDF-3 file ${this.file}: ${entry ? `${entry}: ` : ''}${what}`, { where: this.file, details: { file: this.file, ...(entry ? { variable: entry.replace(/^variable /, '') } : {}) } });
  }

  /** Makes sure `n` more bytes are in the prefix (and in the file). */
  need(n: number, entry?: string): void {
    const end = this.pos + n;
    if (end > this.fileSize) this.corrupt(`the header runs past the end of the file (${this.fileSize} bytes) at byte ${this.pos}: truncated`, entry);
    if (end > this.bytes.length) throw new NeedMore(Math.min(this.fileSize, Math.max(end, this.bytes.length * 2)));
  }

  u32(entry?: string): number {
    this.need(4, entry);
    const v = this.view.getUint32(this.pos);
    this.pos += 4;
    return v;
  }

  /** A non-negative count or length: 4 bytes (8 in CDF-5), below 2^53. */
  count(entry?: string): number {
    if (!this.wide) return this.u32(entry);
    this.need(8, entry);
    const v = this.view.getBigUint64(this.pos);
    this.pos += 8;
    if (v > BigInt(Number.MAX_SAFE_INTEGER)) this.corrupt(`a count or length of ${v} is beyond what the file can hold`, entry);
    return Number(v);
  }

  /** A file offset: 4 bytes in the classic format, 8 otherwise. */
  offset(entry?: string): number {
    if (this.version === 1) return this.u32(entry);
    this.need(8, entry);
    const v = this.view.getBigUint64(this.pos);
    this.pos += 8;
    if (v > BigInt(Number.MAX_SAFE_INTEGER)) this.corrupt(`offset ${v} is past the end of the file`, entry);
    return Number(v);
  }

  /** A bound on how many entries of at least `minBytes` each the rest of the file can hold. */
  bounded(n: number, minBytes: number, what: string, entry?: string): number {
    if (n * minBytes > this.fileSize - this.pos) this.corrupt(`declares ${n} ${what}, more than the ${this.fileSize - this.pos} bytes left can hold`, entry);
    return n;
  }

  text(n: number, entry?: string): string {
    this.need(n, entry);
    const raw = this.bytes.subarray(this.pos, this.pos + n);
    this.pos += n;
    try {
      return new TextDecoder('utf-8', { fatal: true }).decode(raw);
    } catch {
      return this.corrupt('a name or text attribute is not valid UTF-8', entry);
    }
  }

  pad(): void {
    const rem = this.pos % 4;
    if (rem !== 0) {
      this.need(4 - rem);
      this.pos += 4 - rem;
    }
  }
}

/**
 * Parses the header from `bytes`, a prefix of a `fileSize`-byte file named `file` (for errors).
 * `incomplete` asks for a longer prefix.
 */
export function parseNetcdf3Header(bytes: Uint8Array, fileSize: number, file: string): Netcdf3HeaderResult {
  if (fileSize < 4 || bytes.length < 4) {
    if (fileSize >= 4) return { kind: 'incomplete', needBytes: Math.min(fileSize, 4096) };
    throw floeError('CORRUPT_OBJECT', `${file} is not a NetCDF-3 file: ${fileSize} bytes`, { where: file, details: { file } });
  }
  if (bytes[0] !== 0x43 || bytes[1] !== 0x44 || bytes[2] !== 0x46) {
    const hdf5 = bytes[0] === 0x89 && bytes[1] === 0x48 && bytes[2] === 0x44 && bytes[3] === 0x46;
    throw floeError(hdf5 ? 'UNSUPPORTED' : 'CORRUPT_OBJECT',
      hdf5 ? `${file} is an HDF5 (NetCDF-4) file, not NetCDF-3; virtualize scans it with its HDF5 scanner` : `${file} is not a NetCDF-3 file (it does not start with "CDF")`,
      { where: file, details: { file } });
  }
  const version = bytes[3];
  if (version !== 1 && version !== 2 && version !== 5) {
    throw floeError('UNSUPPORTED', `${file}: NetCDF-3 version byte ${version} is not one Floe knows (1 classic, 2 64-bit offset, 5 CDF-5)`, { where: file, details: { file } });
  }
  const cur = new Cursor(bytes, fileSize, file, version);
  cur.pos = 4;
  try {
    const header = readHeader(cur, version);
    return { kind: 'header', header };
  } catch (err) {
    if (err instanceof NeedMore) {
      if (err.bytes > MAX_NETCDF3_HEADER_BYTES) cur.corrupt(`the header is longer than ${MAX_NETCDF3_HEADER_BYTES} bytes`);
      return { kind: 'incomplete', needBytes: err.bytes };
    }
    throw err;
  }
}

function readHeader(cur: Cursor, version: Netcdf3Version): Netcdf3Header {
  const streaming = cur.wide ? peekAllOnes(cur, 8) : peekAllOnes(cur, 4);
  const recs = streaming ? (cur.pos += cur.wide ? 8 : 4, null) : cur.count('the record count');
  const dimensions = readList(cur, TAG_DIMENSION, 'dimensions', cur.wide ? 16 : 8, () => {
    const name = readName(cur, 'a dimension');
    return { name, length: cur.count(`dimension ${name}`) };
  });
  const attributes = readAttributes(cur, undefined);
  const variables = readList(cur, TAG_VARIABLE, 'variables', cur.wide ? 36 : 24, () => readVariable(cur, dimensions.length));
  const header: Netcdf3Header = { version, numRecords: recs, dimensions, attributes, variables, length: cur.pos };
  checkHeader(header, cur);
  return header;
}

function peekAllOnes(cur: Cursor, n: number): boolean {
  cur.need(n);
  for (let i = 0; i < n; i++) if (cur.bytes[cur.pos + i] !== 0xff) return false;
  return true;
}

function readList<T>(cur: Cursor, tag: number, what: string, minEntryBytes: number, entry: () => T, owner?: string): T[] {
  const found = cur.u32(owner);
  const n = cur.count(owner);
  if (found === 0) {
    if (n !== 0) cur.corrupt(`an absent ${what} list has a count of ${n}`, owner);
    return [];
  }
  if (found !== tag) cur.corrupt(`expected the ${what} list (tag ${tag}), found tag ${found} at byte ${cur.pos - (cur.wide ? 12 : 8)}`, owner);
  cur.bounded(n, minEntryBytes, what, owner);
  const out: T[] = [];
  for (let i = 0; i < n; i++) out.push(entry());
  return out;
}

function readName(cur: Cursor, what: string): string {
  const n = cur.count(what);
  if (n === 0 || n > MAX_NAME_BYTES) cur.corrupt(`${what} has a name of ${n} bytes (1 to ${MAX_NAME_BYTES} allowed)`);
  const name = cur.text(n, what);
  cur.pad();
  return name;
}

function readType(cur: Cursor, entry: string): Netcdf3Type {
  const t = cur.u32(entry);
  if (t < 1 || t > 11 || (t > 6 && cur.version !== 5)) cur.corrupt(`unknown type code ${t}`, entry);
  return t as Netcdf3Type;
}

function readAttributes(cur: Cursor, owner: string | undefined): Netcdf3Attribute[] {
  return readList(cur, TAG_ATTRIBUTE, 'attributes', cur.wide ? 24 : 12, () => {
    const name = readName(cur, owner ? `an attribute of ${owner}` : 'a global attribute');
    const label = owner ?? `attribute ${name}`;
    const type = readType(cur, label);
    const n = cur.count(label);
    const size = NETCDF3_TYPES[type].size;
    cur.bounded(n, size, `values of attribute ${name}`, label);
    cur.need(n * size, label);
    const value = attributeValue(cur, type, n, label);
    cur.pad();
    return { name, type, value };
  }, owner);
}

function attributeValue(cur: Cursor, type: Netcdf3Type, n: number, entry: string): Netcdf3AttributeValue {
  if (type === 2) {
    let end = n;
    while (end > 0 && cur.bytes[cur.pos + end - 1] === 0) end--;
    const text = cur.text(end, entry);
    cur.pos += n - end;
    return text;
  }
  const view = new DataView(cur.bytes.buffer, cur.bytes.byteOffset + cur.pos, n * NETCDF3_TYPES[type].size);
  const out: (number | bigint)[] = [];
  for (let i = 0; i < n; i++) out.push(readValue(view, type, i));
  cur.pos += n * NETCDF3_TYPES[type].size;
  return out;
}

/** Element `i` of a big-endian array of `type`. */
export function readValue(view: DataView, type: Netcdf3Type, i: number): number | bigint {
  switch (type) {
    case 1: return view.getInt8(i);
    case 2: case 7: return view.getUint8(i);
    case 3: return view.getInt16(i * 2);
    case 8: return view.getUint16(i * 2);
    case 4: return view.getInt32(i * 4);
    case 9: return view.getUint32(i * 4);
    case 5: return view.getFloat32(i * 4);
    case 6: return view.getFloat64(i * 8);
    case 10: return view.getBigInt64(i * 8);
    case 11: return view.getBigUint64(i * 8);
  }
}

function readVariable(cur: Cursor, dimensionCount: number): Netcdf3Variable {
  const name = readName(cur, 'a variable');
  const label = `variable ${name}`;
  const rank = cur.count(label);
  if (rank > MAX_RANK) cur.corrupt(`has ${rank} dimensions (at most ${MAX_RANK})`, label);
  cur.bounded(rank, cur.wide ? 8 : 4, 'dimension ids', label);
  const dimensionIds: number[] = [];
  for (let i = 0; i < rank; i++) {
    const id = cur.count(label);
    if (id >= dimensionCount) cur.corrupt(`dimension id ${id} is not one of the file's ${dimensionCount} dimensions`, label);
    dimensionIds.push(id);
  }
  const attributes = readAttributes(cur, label);
  const type = readType(cur, label);
  const vsize = cur.count(label);
  const begin = cur.offset(label);
  return { name, dimensionIds, attributes, type, vsize, begin };
}

/** What the layout relies on: one record dimension, only first; names unique. */
function checkHeader(header: Netcdf3Header, cur: Cursor): void {
  const records = header.dimensions.filter((d) => d.length === 0);
  if (records.length > 1) cur.corrupt(`has ${records.length} record (unlimited) dimensions; NetCDF-3 allows one`);
  const names = new Set<string>();
  for (const v of header.variables) {
    const label = `variable ${v.name}`;
    if (names.has(v.name)) cur.corrupt('the name appears twice', label);
    names.add(v.name);
    v.dimensionIds.forEach((id, i) => {
      if (i > 0 && header.dimensions[id]?.length === 0) cur.corrupt('the record dimension is not its first dimension', label);
    });
    if (v.begin < header.length && !isEmpty(header, v)) cur.corrupt(`its data offset ${v.begin} lies inside the header (${header.length} bytes)`, label);
  }
}

function isEmpty(header: Netcdf3Header, v: Netcdf3Variable): boolean {
  return isRecordVariable(header, v) && header.numRecords === 0;
}

/** The variable is a record variable (its first dimension is the record dimension). */
export function isRecordVariable(header: Netcdf3Header, v: Netcdf3Variable): boolean {
  const first = v.dimensionIds[0];
  return first !== undefined && header.dimensions[first]?.length === 0;
}
