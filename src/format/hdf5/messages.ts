// The object header messages a scanner needs, decoded from their bodies: dataspace, datatype,
// fill value (old and new), data layout (versions 1-4), filter pipeline, links and link info,
// attributes and attribute info, symbol table. Each decoder bounds what it reads by the body.
import { Cursor, UNDEFINED, type Hdf5Sizes } from './io.ts';

export const MSG = {
  dataspace: 0x01,
  linkInfo: 0x02,
  datatype: 0x03,
  fillOld: 0x04,
  fill: 0x05,
  link: 0x06,
  external: 0x07,
  layout: 0x08,
  filters: 0x0b,
  attribute: 0x0c,
  symbolTable: 0x11,
  attributeInfo: 0x15,
} as const;

export type Hdf5Type =
  | { readonly kind: 'int'; readonly size: number; readonly signed: boolean; readonly bigEndian: boolean }
  | { readonly kind: 'float'; readonly size: number; readonly bigEndian: boolean }
  | { readonly kind: 'string'; readonly size: number }
  | { readonly kind: 'vlen-string' }
  | { readonly kind: 'vlen'; readonly base: Hdf5Type }
  | { readonly kind: 'enum'; readonly size: number; readonly base: Hdf5Type; readonly members: readonly { readonly name: string; readonly value: Uint8Array }[] }
  | { readonly kind: 'reference'; readonly size: number }
  | { readonly kind: 'other'; readonly size: number; readonly what: string };

const CLASS_NAMES = ['fixed-point', 'floating-point', 'time', 'string', 'bitfield', 'opaque', 'compound', 'reference', 'enumerated', 'variable-length', 'array'];

export function decodeDatatype(c: Cursor): Hdf5Type {
  const classAndVersion = c.u8();
  const cls = classAndVersion & 0x0f;
  const version = classAndVersion >> 4;
  const b0 = c.u8();
  const b1 = c.u8();
  c.u8();
  const size = c.u32();
  if (size === 0 || size > 1 << 20) throw c.fail(`a datatype of ${size} bytes`);
  switch (cls) {
    case 0:
      c.skip(4);
      return { kind: 'int', size, signed: (b0 & 0x08) !== 0, bigEndian: (b0 & 0x01) !== 0 };
    case 1:
      c.skip(12);
      if ((b0 & 0x40) !== 0) return { kind: 'other', size, what: 'a VAX-ordered float' };
      return { kind: 'float', size, bigEndian: (b0 & 0x01) !== 0 };
    case 3:
      return { kind: 'string', size };
    case 7:
      return { kind: 'reference', size };
    case 8: {
      const base = decodeDatatype(c);
      const count = b0 | (b1 << 8);
      const names: string[] = [];
      for (let i = 0; i < count; i++) {
        if (version >= 3) {
          const start = c.pos;
          while (c.u8() !== 0);
          names.push(new TextDecoder().decode(c.bytes.subarray(start, c.pos - 1)));
        } else {
          const start = c.pos;
          while (c.u8() !== 0);
          names.push(new TextDecoder().decode(c.bytes.subarray(start, c.pos - 1)));
          c.skip((8 - ((c.pos - start) % 8)) % 8);
        }
      }
      const members = names.map((name) => ({ name, value: c.bytesOf(size) }));
      return { kind: 'enum', size, base, members };
    }
    case 9: {
      const base = decodeDatatype(c);
      if ((b0 & 0x0f) === 1) return { kind: 'vlen-string' };
      return { kind: 'vlen', base };
    }
    default:
      return { kind: 'other', size, what: `a ${CLASS_NAMES[cls] ?? `class-${cls}`} datatype` };
  }
}

export interface Dataspace {
  /** null: a null dataspace (no elements); [] a scalar. */
  readonly dims: readonly number[] | null;
  readonly maxDims: readonly (number | null)[] | null;
}

export function decodeDataspace(c: Cursor): Dataspace {
  const version = c.u8();
  const rank = c.u8();
  const flags = c.u8();
  if (rank > 32) throw c.fail(`a dataspace of rank ${rank}`);
  let type = 1;
  if (version === 1) c.skip(5);
  else if (version === 2) type = c.u8();
  else throw c.fail(`dataspace version ${version}`);
  if (version === 1 && rank === 0) type = 0;
  const dims: number[] = [];
  for (let i = 0; i < rank; i++) dims.push(c.length());
  let maxDims: (number | null)[] | null = null;
  if ((flags & 1) !== 0) {
    maxDims = [];
    for (let i = 0; i < rank; i++) {
      const m = c.uint(c.sizes.lengthSize);
      maxDims.push(m === UNDEFINED ? null : m);
    }
  }
  if (type === 2) return { dims: null, maxDims: null };
  return { dims: type === 0 ? [] : dims, maxDims };
}

/** The fill value bytes, when defined (undefined: the library default, zeros). */
export function decodeFillValue(c: Cursor, type: number): Uint8Array | undefined {
  if (type === MSG.fillOld) {
    const size = c.u32();
    return size > 0 ? c.bytesOf(size).slice() : undefined;
  }
  const version = c.u8();
  if (version === 1 || version === 2) {
    c.skip(2);
    const defined = c.u8();
    if (version === 2 && defined === 0) return undefined;
    if (c.remaining < 4) return undefined;
    const size = c.u32();
    return size > 0 ? c.bytesOf(size).slice() : undefined;
  }
  if (version === 3) {
    const flags = c.u8();
    if ((flags & 0x20) === 0) return undefined;
    const size = c.u32();
    return size > 0 ? c.bytesOf(size).slice() : undefined;
  }
  throw c.fail(`fill value message version ${version}`);
}

export type ChunkIndex =
  | { readonly kind: 'btree1'; readonly address: number }
  | { readonly kind: 'single'; readonly address: number; readonly filteredSize?: number; readonly filterMask?: number }
  | { readonly kind: 'implicit'; readonly address: number }
  | { readonly kind: 'fixed-array'; readonly address: number }
  | { readonly kind: 'extensible-array'; readonly address: number }
  | { readonly kind: 'btree2'; readonly address: number };

export type Layout =
  | { readonly kind: 'compact'; readonly data: Uint8Array }
  | { readonly kind: 'contiguous'; readonly address: number; readonly size: number | undefined }
  | { readonly kind: 'chunked'; readonly chunkShape: readonly number[]; readonly index: ChunkIndex; readonly version: number }
  | { readonly kind: 'other'; readonly what: string };

export function decodeLayout(c: Cursor): Layout {
  const version = c.u8();
  if (version === 1 || version === 2) {
    const rank = c.u8();
    const cls = c.u8();
    c.skip(5);
    const address = cls === 0 ? UNDEFINED : c.address();
    const dims: number[] = [];
    for (let i = 0; i < rank; i++) dims.push(c.u32());
    if (cls === 0) {
      const size = c.u32();
      return { kind: 'compact', data: c.bytesOf(size).slice() };
    }
    if (cls === 1) return { kind: 'contiguous', address, size: undefined };
    if (cls === 2) return { kind: 'chunked', chunkShape: dims.slice(0, -1), index: { kind: 'btree1', address }, version };
    return { kind: 'other', what: `layout class ${cls}` };
  }
  if (version !== 3 && version !== 4) throw c.fail(`data layout version ${version}`);
  const cls = c.u8();
  if (cls === 0) {
    const size = c.u16();
    return { kind: 'compact', data: c.bytesOf(size).slice() };
  }
  if (cls === 1) return { kind: 'contiguous', address: c.address(), size: c.length() };
  if (cls === 3) return { kind: 'other', what: 'a virtual dataset (layout class 3)' };
  if (cls !== 2) throw c.fail(`data layout class ${cls}`);
  if (version === 3) {
    const rank = c.u8();
    const address = c.address();
    const dims: number[] = [];
    for (let i = 0; i < rank; i++) dims.push(c.u32());
    return { kind: 'chunked', chunkShape: dims.slice(0, -1), index: { kind: 'btree1', address }, version };
  }
  const flags = c.u8();
  const rank = c.u8();
  const width = c.u8();
  if (width < 1 || width > 8) throw c.fail(`chunk dimensions encoded in ${width} bytes`);
  const dims: number[] = [];
  for (let i = 0; i < rank; i++) dims.push(c.uint(width, 'a chunk dimension'));
  const indexType = c.u8();
  const chunkShape = dims.slice(0, -1);
  let index: ChunkIndex;
  switch (indexType) {
    case 1: {
      if ((flags & 2) !== 0) {
        const filteredSize = c.length();
        const filterMask = c.u32();
        index = { kind: 'single', address: c.address(), filteredSize, filterMask };
      } else index = { kind: 'single', address: c.address() };
      break;
    }
    case 2:
      index = { kind: 'implicit', address: c.address() };
      break;
    case 3:
      c.skip(1);
      index = { kind: 'fixed-array', address: c.address() };
      break;
    case 4:
      c.skip(5);
      index = { kind: 'extensible-array', address: c.address() };
      break;
    case 5:
      c.skip(6);
      index = { kind: 'btree2', address: c.address() };
      break;
    default:
      throw c.fail(`chunk index type ${indexType}`);
  }
  return { kind: 'chunked', chunkShape, index, version };
}

export interface Filter {
  readonly id: number;
  readonly name: string;
  readonly optional: boolean;
  readonly values: readonly number[];
}

export function decodeFilters(c: Cursor): Filter[] {
  const version = c.u8();
  const count = c.u8();
  if (version === 1) c.skip(6);
  else if (version !== 2) throw c.fail(`filter pipeline version ${version}`);
  const out: Filter[] = [];
  for (let i = 0; i < count; i++) {
    const id = c.u16();
    const nameLength = version === 1 || id >= 256 ? c.u16() : 0;
    const flags = c.u16();
    const nValues = c.u16();
    let name = '';
    if (nameLength > 0) {
      name = c.text(version === 1 ? Math.ceil(nameLength / 8) * 8 : nameLength);
    }
    const values: number[] = [];
    for (let v = 0; v < nValues; v++) values.push(c.u32());
    if (version === 1 && nValues % 2 === 1) c.skip(4);
    out.push({ id, name, optional: (flags & 1) !== 0, values });
  }
  return out;
}

export type Link =
  | { readonly name: string; readonly kind: 'hard'; readonly address: number }
  | { readonly name: string; readonly kind: 'soft' | 'external' | 'other' };

export function decodeLink(c: Cursor): Link {
  const version = c.u8();
  if (version !== 1) throw c.fail(`link message version ${version}`);
  const flags = c.u8();
  const type = (flags & 0x08) !== 0 ? c.u8() : 0;
  if ((flags & 0x04) !== 0) c.skip(8);
  if ((flags & 0x10) !== 0) c.skip(1);
  const nameLength = c.uint(1 << (flags & 3), 'a link name length');
  const name = new TextDecoder().decode(c.bytesOf(nameLength));
  if (type === 0) return { name, kind: 'hard', address: c.address() };
  return { name, kind: type === 1 ? 'soft' : type === 64 ? 'external' : 'other' };
}

export interface DenseStorage {
  readonly heap: number;
  readonly nameIndex: number;
}

/** Link info or attribute info: where dense storage lives (UNDEFINED heap: compact). */
export function decodeDenseInfo(c: Cursor, kind: 'link' | 'attribute'): DenseStorage {
  c.u8();
  const flags = c.u8();
  if ((flags & 1) !== 0) c.skip(kind === 'link' ? 8 : 2);
  const heap = c.address();
  const nameIndex = c.address();
  return { heap, nameIndex };
}

export interface RawAttribute {
  readonly name: string;
  readonly type: Hdf5Type;
  readonly space: Dataspace;
  readonly data: Uint8Array;
}

export function decodeAttribute(c: Cursor): RawAttribute {
  const version = c.u8();
  const flags = c.u8();
  const nameSize = c.u16();
  const typeSize = c.u16();
  const spaceSize = c.u16();
  if (version === 3) c.skip(1);
  else if (version !== 1 && version !== 2) throw c.fail(`attribute message version ${version}`);
  if ((flags & 3) !== 0) throw c.fail('an attribute with a shared datatype or dataspace');
  const pad = (n: number) => (version === 1 ? Math.ceil(n / 8) * 8 : n);
  const name = c.text(pad(nameSize));
  const type = decodeDatatype(new Cursor(c.bytesOf(pad(typeSize)), c.sizes, c.file, c.object));
  const space = decodeDataspace(new Cursor(c.bytesOf(pad(spaceSize)), c.sizes, c.file, c.object));
  const data = c.bytes.subarray(c.pos);
  return { name, type, space, data };
}

export function decodeSymbolTable(c: Cursor): { btree: number; heap: number } {
  return { btree: c.address(), heap: c.address() };
}

export function cursorOf(body: Uint8Array, sizes: Hdf5Sizes, file: string, object: string): Cursor {
  return new Cursor(body, sizes, file, object);
}
