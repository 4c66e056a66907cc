// Reading an HDF5 file's structure by byte ranges: the source a scanner supplies (pure: the
// format code never opens files), a little-endian cursor sized by the superblock's offset and
// length widths, and the one error every malformed structure becomes (CORRUPT_OBJECT naming the
// file and the object being read).
import { floeError, type FloeError } from '../../errors.ts';
import { jenkinsLookup3 } from '../codecs/numcodecs/jenkins-lookup3.ts';

/** The file as ranges: `read` returns fewer bytes only at the end of the file. */
export interface Hdf5Source {
  /** How the file is named in messages. */
  readonly name: string;
  readonly size: number;
  read(offset: number, length: number): Promise<Uint8Array>;
}

/** The widths of addresses and lengths (superblock), and the base address they are relative to. */
export interface Hdf5Sizes {
  readonly offsetSize: number;
  readonly lengthSize: number;
  readonly base: number;
}

/** The undefined address (all bits set), as the parser reports it. */
export const UNDEFINED = -1;

/** Largest structure the scanner reads in one piece (an object header chunk, a B-tree node, a heap block). */
export const MAX_STRUCTURE_BYTES = 64 * 1024 * 1024;

export function corrupt(file: string, object: string, what: string): FloeError<'CORRUPT_OBJECT'> {
  return floeError('CORRUPT_OBJECT', `HDF5 file ${file}: ${object}: ${what}; the file is damaged or not HDF5 (re-create it, or virtualize the other files)`, { where: file, details: { file, variable: object } });
}

/** `length` bytes at `offset`, all of them, else CORRUPT_OBJECT (truncated file or address past its end). */
export async function readExactly(src: Hdf5Source, offset: number, length: number, object: string): Promise<Uint8Array> {
  if (!Number.isSafeInteger(offset) || offset < 0 || !Number.isSafeInteger(length) || length < 0 || length > MAX_STRUCTURE_BYTES) {
    throw corrupt(src.name, object, `a structure of ${length} bytes at byte ${offset} cannot be read`);
  }
  if (offset + length > src.size) throw corrupt(src.name, object, `${length} bytes at byte ${offset} run past the end of the file (${src.size} bytes): it is truncated`);
  const bytes = await src.read(offset, length);
  if (bytes.length < length) throw corrupt(src.name, object, `${length} bytes at byte ${offset}: the file became shorter while it was read`);
  return bytes;
}

/** A bounds-checked little-endian reader over one structure's bytes. */
export class Cursor {
  pos = 0;
  constructor(
    readonly bytes: Uint8Array,
    readonly sizes: Hdf5Sizes,
    readonly file: string,
    readonly object: string,
  ) {}

  fail(what: string): FloeError<'CORRUPT_OBJECT'> {
    return corrupt(this.file, this.object, what);
  }

  need(n: number): void {
    if (n < 0 || this.pos + n > this.bytes.length) throw this.fail(`it ends early (${n} bytes wanted at ${this.pos} of ${this.bytes.length})`);
  }

  get remaining(): number {
    return this.bytes.length - this.pos;
  }

  skip(n: number): void {
    this.need(n);
    this.pos += n;
  }

  u8(): number {
    this.need(1);
    return this.bytes[this.pos++] as number;
  }

  u16(): number {
    this.need(2);
    const b = this.bytes;
    const v = (b[this.pos] as number) | ((b[this.pos + 1] as number) << 8);
    this.pos += 2;
    return v;
  }

  u32(): number {
    this.need(4);
    const b = this.bytes;
    const v = ((b[this.pos] as number) | ((b[this.pos + 1] as number) << 8) | ((b[this.pos + 2] as number) << 16)) + (b[this.pos + 3] as number) * 0x1000000;
    this.pos += 4;
    return v;
  }

  /** An unsigned integer of `n` bytes (n <= 8); all bits set is UNDEFINED; beyond 2^53 is corrupt. */
  uint(n: number, what = 'a number'): number {
    this.need(n);
    let v = 0;
    let allOnes = n > 0;
    for (let i = n - 1; i >= 0; i--) {
      const byte = this.bytes[this.pos + i] as number;
      if (byte !== 0xff) allOnes = false;
      v = v * 256 + byte;
    }
    this.pos += n;
    if (allOnes) return UNDEFINED;
    if (!Number.isSafeInteger(v)) throw this.fail(`${what} (${v}) is too large`);
    return v;
  }

  /** An address (relative to the base address); UNDEFINED for the undefined address. */
  address(): number {
    const a = this.uint(this.sizes.offsetSize, 'an address');
    return a === UNDEFINED ? UNDEFINED : a + this.sizes.base;
  }

  length(): number {
    const n = this.uint(this.sizes.lengthSize, 'a length');
    if (n === UNDEFINED) throw this.fail('a length is undefined');
    return n;
  }

  bytesOf(n: number): Uint8Array {
    this.need(n);
    const out = this.bytes.subarray(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }

  signature(sig: string): void {
    const got = new TextDecoder('latin1').decode(this.bytesOf(4));
    if (got !== sig) throw this.fail(`expected the signature ${sig}, found ${JSON.stringify(got)}`);
  }

  /** A NUL-terminated (or field-filling) string of `n` bytes. */
  text(n: number): string {
    const raw = this.bytesOf(n);
    const end = raw.indexOf(0);
    return new TextDecoder().decode(end < 0 ? raw : raw.subarray(0, end));
  }
}

/** Bytes needed to encode `n` (HDF5's "limit encode size": floor(log2 n) / 8 + 1). */
export function encodedSizeOf(n: number): number {
  if (n <= 0) return 1;
  return Math.floor(Math.floor(Math.log2(n)) / 8) + 1;
}

/**
 * Checks the Jenkins lookup3 checksum HDF5 stores after the `end` bytes of a version-2 structure
 * (in `bytes`, read from the structure's start): a mismatch is CORRUPT_OBJECT, so a damaged node
 * is refused rather than read as other chunk addresses.
 */
export function checkChecksum(c: Cursor, end: number, what: string): void {
  if (end < 0 || end + 4 > c.bytes.length) throw c.fail(`${what} is too short for its checksum`);
  const b = c.bytes;
  const stored = ((b[end] as number) | ((b[end + 1] as number) << 8) | ((b[end + 2] as number) << 16) | ((b[end + 3] as number) << 24)) >>> 0;
  if (jenkinsLookup3(b.subarray(0, end), 0) !== stored) throw c.fail(`the checksum of ${what} does not match: it is damaged`);
}
