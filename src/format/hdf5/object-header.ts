// Superblocks (versions 0-3) and object headers (versions 1 and 2, with continuation blocks):
// an object's messages as raw bodies, in order. Continuations are followed at most once each and
// in bounded number, so a block pointing at itself (or a loop of blocks) ends as CORRUPT_OBJECT.
import { checkChecksum, Cursor, corrupt, readExactly, UNDEFINED, type Hdf5Sizes, type Hdf5Source } from './io.ts';

const SIGNATURE = [0x89, 0x48, 0x44, 0x46, 0x0d, 0x0a, 0x1a, 0x0a];
/** Continuation blocks one object header may have. */
const MAX_CONTINUATIONS = 4096;

export interface Superblock {
  readonly version: number;
  readonly sizes: Hdf5Sizes;
  /** Object header address of the root group. */
  readonly rootAddress: number;
  /** Superblock 0/1: the root group's symbol-table scratch (B-tree and local heap), when cached. */
  readonly rootSymbolTable?: { readonly btree: number; readonly heap: number };
  readonly at: number;
}

/** True when `bytes` starts with the HDF5 signature. */
export function hasHdf5Signature(bytes: Uint8Array): boolean {
  return SIGNATURE.every((b, i) => bytes[i] === b);
}

/** Finds and reads the superblock (signature at 0, 512, 1024, 2048, ...). */
export async function readSuperblock(src: Hdf5Source): Promise<Superblock> {
  for (let at = 0; at + 8 <= src.size; at = at === 0 ? 512 : at * 2) {
    const head = await readExactly(src, at, Math.min(src.size - at, 128), 'the superblock');
    if (!hasHdf5Signature(head)) continue;
    const version = head[8] ?? 0;
    const where = 'the superblock';
    if (version <= 1) {
      const offsetSize = head[13] ?? 0;
      const lengthSize = head[14] ?? 0;
      checkWidths(src.name, offsetSize, lengthSize);
      const c = new Cursor(head, { offsetSize, lengthSize, base: 0 }, src.name, where);
      c.pos = 24 + (version === 1 ? 4 : 0);
      const base = c.uint(offsetSize);
      const sizes = { offsetSize, lengthSize, base: base === UNDEFINED ? 0 : base };
      const rc = new Cursor(head, sizes, src.name, where);
      rc.pos = c.pos + 3 * offsetSize;
      rc.uint(offsetSize); // link name offset
      const rootAddress = rc.address();
      const cacheType = rc.u32();
      rc.skip(4);
      const rootSymbolTable = cacheType === 1 ? { btree: rc.address(), heap: rc.address() } : undefined;
      return rootSymbolTable ? { version, sizes, rootAddress, rootSymbolTable, at } : { version, sizes, rootAddress, at };
    }
    if (version === 2 || version === 3) {
      const offsetSize = head[9] ?? 0;
      const lengthSize = head[10] ?? 0;
      checkWidths(src.name, offsetSize, lengthSize);
      const c = new Cursor(head, { offsetSize, lengthSize, base: 0 }, src.name, where);
      c.pos = 12;
      const base = c.uint(offsetSize);
      const sizes = { offsetSize, lengthSize, base: base === UNDEFINED ? 0 : base };
      const rc = new Cursor(head, sizes, src.name, where);
      rc.pos = c.pos + 2 * offsetSize; // superblock extension, end of file
      const rootAddress = rc.address();
      checkChecksum(c, 12 + 4 * offsetSize, 'the superblock');
      return { version, sizes, rootAddress, at };
    }
    throw corrupt(src.name, where, `superblock version ${version} is not one Floe reads (0-3)`);
  }
  throw corrupt(src.name, 'the superblock', 'no HDF5 signature at byte 0, 512, 1024, ...');
}

function checkWidths(file: string, offsetSize: number, lengthSize: number): void {
  for (const n of [offsetSize, lengthSize]) if (![2, 4, 8].includes(n)) throw corrupt(file, 'the superblock', `an address or length width of ${n} bytes`);
}

export interface Message {
  readonly type: number;
  readonly flags: number;
  readonly body: Uint8Array;
}

export interface ObjectHeader {
  readonly address: number;
  readonly messages: readonly Message[];
  /** Version 2: link and attribute creation order tracked. */
  readonly version: number;
}

const CONTINUATION = 0x10;

/** Every message of the object header at `address` (continuation blocks followed). */
export async function readObjectHeader(src: Hdf5Source, sizes: Hdf5Sizes, address: number, object: string): Promise<ObjectHeader> {
  if (address === UNDEFINED) throw corrupt(src.name, object, 'its object header address is undefined');
  const messages: Message[] = [];
  const visited = new Set<number>();
  const pending: { at: number; length: number }[] = [];
  const prefix = await readExactly(src, address, Math.min(16, src.size - address), object);
  let version: number;
  let v2Flags = 0;
  if (prefix[0] === 1) {
    version = 1;
    const c = new Cursor(prefix, sizes, src.name, object);
    c.skip(2);
    c.u16(); // message count
    c.u32(); // reference count
    const size = c.u32();
    pending.push({ at: address + 16, length: size });
    visited.add(address + 16);
  } else {
    version = 2;
    const c = new Cursor(prefix, sizes, src.name, object);
    c.signature('OHDR');
    if (c.u8() !== 2) throw c.fail('object header version is not 1 or 2');
    const flags = c.u8();
    v2Flags = flags;
    let skip = 6 + ((flags & 0x20) !== 0 ? 16 : 0) + ((flags & 0x10) !== 0 ? 4 : 0);
    const widthBytes = 1 << (flags & 3);
    const head = await readExactly(src, address, skip + widthBytes, object);
    const hc = new Cursor(head, sizes, src.name, object);
    hc.pos = skip;
    const size = hc.uint(widthBytes, 'the object header size');
    skip += widthBytes;
    const whole = new Cursor(await readExactly(src, address, skip + size + 4, object), sizes, src.name, object);
    checkChecksum(whole, skip + size, 'the object header');
    pending.push({ at: address + skip, length: size });
    visited.add(address);
  }
  let first = true;
  while (pending.length > 0) {
    const block = pending.shift() as { at: number; length: number };
    const isV2Continuation = version === 2 && !first;
    const bytes = await readExactly(src, block.at, block.length, object);
    const c = new Cursor(bytes, sizes, src.name, object);
    let end = bytes.length;
    if (version === 2) {
      if (isV2Continuation) {
        c.signature('OCHK');
        checkChecksum(c, bytes.length - 4, 'an object header continuation block');
      }
      end = first ? bytes.length : bytes.length - 4;
    }
    const creationOrder = (v2Flags & 0x04) !== 0;
    while (c.pos < end) {
      let type: number;
      let size: number;
      let flags: number;
      if (version === 1) {
        if (end - c.pos < 8) break;
        type = c.u16();
        size = c.u16();
        flags = c.u8();
        c.skip(3);
      } else {
        const headerBytes = creationOrder ? 6 : 4;
        if (end - c.pos < headerBytes) break; // a gap
        type = c.u8();
        size = c.u16();
        flags = c.u8();
        if (creationOrder) c.skip(2);
      }
      if (c.pos + size > end) throw c.fail(`message of type ${type} (${size} bytes) runs past its header block`);
      const body = c.bytesOf(size);
      if (type === CONTINUATION) {
        const mc = new Cursor(body, sizes, src.name, object);
        const at = mc.address();
        const length = mc.length();
        if (visited.has(at)) throw corrupt(src.name, object, `a continuation block at byte ${at} is reached twice (the object header loops)`);
        if (visited.size >= MAX_CONTINUATIONS) throw corrupt(src.name, object, `more than ${MAX_CONTINUATIONS} continuation blocks`);
        visited.add(at);
        pending.push({ at, length });
      } else if (type !== 0) {
        messages.push({ type, flags, body });
      }
    }
    first = false;
  }
  return { address, messages, version };
}
