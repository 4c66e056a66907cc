// A bounds-checked reader over a flatbuffers payload. The flatbuffers JS runtime trusts its
// input: an offset past the end reads as 0 and a forged vector length loops for billions of
// iterations. Every access here is checked first, so corrupt bytes end in CORRUPT_OBJECT.
// Tables are addressed by their absolute position; fields by slot (declaration order, counting
// a union as two slots: its type byte, then its value).
import { ByteBuffer } from 'flatbuffers';
import { floeError, isFloeError } from '../../errors.ts';

const utf8 = new TextDecoder('utf-8', { fatal: true });

export class FlatbufferReader {
  readonly bb: ByteBuffer;
  readonly bytes: Uint8Array;
  readonly where: string | undefined;

  constructor(bytes: Uint8Array, where?: string) {
    this.bytes = bytes;
    this.bb = new ByteBuffer(bytes);
    this.where = where;
  }

  corrupt(what: string): never {
    throw floeError('CORRUPT_OBJECT', `malformed flatbuffer: ${what}; the object is damaged, restore it from a backup or re-create it`, { where: this.where });
  }

  private check(position: number, size: number, what: string): void {
    if (!(position >= 0 && position + size <= this.bytes.length)) {
      this.corrupt(`${what} at ${position}+${size} lies outside the ${this.bytes.length}-byte buffer`);
    }
  }

  /** The position of the root table. */
  root(): number {
    this.check(0, 4, 'root offset');
    return this.table(this.bb.readUint32(0), 'root table');
  }

  /** Validates a table header and returns its position. */
  private table(position: number, what: string): number {
    this.check(position, 4, what);
    const vtable = position - this.bb.readInt32(position);
    this.check(vtable, 4, `vtable of ${what}`);
    const vtableSize = this.bb.readUint16(vtable);
    const objectSize = this.bb.readUint16(vtable + 2);
    if (vtableSize < 4 || vtableSize % 2 !== 0) this.corrupt(`vtable of ${what} has size ${vtableSize}`);
    this.check(vtable, vtableSize, `vtable of ${what}`);
    this.check(position, Math.max(objectSize, 4), what);
    return position;
  }

  /** Absolute position of a field's inline data, or 0 when the field is absent. */
  field(table: number, slot: number, size: number): number {
    const vtable = table - this.bb.readInt32(table);
    const entry = 4 + slot * 2;
    if (entry >= this.bb.readUint16(vtable)) return 0;
    const offset = this.bb.readUint16(vtable + entry);
    if (offset === 0) return 0;
    this.check(table + offset, size, `field ${slot}`);
    return table + offset;
  }

  has(table: number, slot: number): boolean {
    return this.field(table, slot, 0) !== 0;
  }

  u8(table: number, slot: number, fallback = 0): number {
    const at = this.field(table, slot, 1);
    return at ? this.bb.readUint8(at) : fallback;
  }
  u16(table: number, slot: number, fallback = 0): number {
    const at = this.field(table, slot, 2);
    return at ? this.bb.readUint16(at) : fallback;
  }
  u32(table: number, slot: number, fallback = 0): number {
    const at = this.field(table, slot, 4);
    return at ? this.bb.readUint32(at) : fallback;
  }
  i32(table: number, slot: number, fallback = 0): number {
    const at = this.field(table, slot, 4);
    return at ? this.bb.readInt32(at) : fallback;
  }
  u64(table: number, slot: number, fallback = 0n): bigint {
    const at = this.field(table, slot, 8);
    return at ? this.bb.readUint64(at) : fallback;
  }
  /** A uint64 as a JS number; values past 2^53 are refused rather than rounded. */
  u64n(table: number, slot: number, fallback = 0): number {
    const at = this.field(table, slot, 8);
    return at ? this.safeU64At(at) : fallback;
  }

  safeU64At(at: number): number {
    const high = this.bb.readUint32(at + 4);
    if (high >= 0x200000) {
      throw floeError('UNSUPPORTED', `a 64-bit value at byte ${at} exceeds 2^53, which Floe cannot represent exactly`, { where: this.where });
    }
    return high * 0x100000000 + this.bb.readUint32(at);
  }

  bool(table: number, slot: number, fallback = false): boolean {
    const at = this.field(table, slot, 1);
    return at ? this.bb.readUint8(at) !== 0 : fallback;
  }

  /** Follows a uoffset stored at `at`. */
  private indirect(at: number, what: string): number {
    const target = at + this.bb.readUint32(at);
    this.check(target, 4, what);
    return target;
  }

  /** A sub-table field, or undefined when absent. */
  childTable(table: number, slot: number): number | undefined {
    const at = this.field(table, slot, 4);
    return at ? this.table(this.indirect(at, `table field ${slot}`), `table field ${slot}`) : undefined;
  }

  requiredTable(table: number, slot: number, name: string): number {
    return this.childTable(table, slot) ?? this.corrupt(`required table '${name}' is missing`);
  }

  /** An inline struct field's bytes copied out, or undefined when absent. */
  structBytes(table: number, slot: number, size: number): Uint8Array | undefined {
    const at = this.field(table, slot, size);
    return at ? this.bytes.slice(at, at + size) : undefined;
  }

  requiredStruct(table: number, slot: number, size: number, name: string): Uint8Array {
    return this.structBytes(table, slot, size) ?? this.corrupt(`required field '${name}' is missing`);
  }

  /** Start and length of a vector field, or undefined when absent. */
  vector(table: number, slot: number, elementSize: number): { start: number; length: number } | undefined {
    const at = this.field(table, slot, 4);
    if (!at) return undefined;
    const header = this.indirect(at, `vector field ${slot}`);
    const length = this.bb.readUint32(header);
    this.check(header + 4, length * elementSize, `vector field ${slot} of ${length} elements`);
    return { start: header + 4, length };
  }

  requiredVector(table: number, slot: number, elementSize: number, name: string): { start: number; length: number } {
    return this.vector(table, slot, elementSize) ?? this.corrupt(`required vector '${name}' is missing`);
  }

  /** The tables of a vector-of-tables field (empty when absent). */
  tables(table: number, slot: number): number[] {
    const vec = this.vector(table, slot, 4);
    if (!vec) return [];
    const out = new Array<number>(vec.length);
    for (let i = 0; i < vec.length; i++) {
      const at = vec.start + i * 4;
      out[i] = this.table(this.indirect(at, `element ${i} of vector ${slot}`), `element ${i} of vector ${slot}`);
    }
    return out;
  }

  /** A byte-vector field as a view into the payload, or undefined when absent. */
  byteVector(table: number, slot: number): Uint8Array | undefined {
    const vec = this.vector(table, slot, 1);
    return vec ? this.bytes.subarray(vec.start, vec.start + vec.length) : undefined;
  }

  u32Vector(table: number, slot: number): number[] | undefined {
    const vec = this.vector(table, slot, 4);
    if (!vec) return undefined;
    const out = new Array<number>(vec.length);
    for (let i = 0; i < vec.length; i++) out[i] = this.bb.readUint32(vec.start + i * 4);
    return out;
  }

  u16Vector(table: number, slot: number): number[] | undefined {
    const vec = this.vector(table, slot, 2);
    if (!vec) return undefined;
    const out = new Array<number>(vec.length);
    for (let i = 0; i < vec.length; i++) out[i] = this.bb.readUint16(vec.start + i * 2);
    return out;
  }

  /** Decodes a string stored at `header` (length-prefixed UTF-8). */
  private stringAt(header: number, what: string): string {
    const length = this.bb.readUint32(header);
    this.check(header + 4, length, what);
    try {
      return utf8.decode(this.bytes.subarray(header + 4, header + 4 + length));
    } catch {
      return this.corrupt(`${what} is not valid UTF-8`);
    }
  }

  string(table: number, slot: number): string | undefined {
    const at = this.field(table, slot, 4);
    return at ? this.stringAt(this.indirect(at, `string field ${slot}`), `string field ${slot}`) : undefined;
  }

  requiredString(table: number, slot: number, name: string): string {
    return this.string(table, slot) ?? this.corrupt(`required string '${name}' is missing`);
  }

  /** The strings of a vector-of-strings field. */
  strings(table: number, slot: number): string[] | undefined {
    const vec = this.vector(table, slot, 4);
    if (!vec) return undefined;
    const out = new Array<string>(vec.length);
    for (let i = 0; i < vec.length; i++) {
      out[i] = this.stringAt(this.indirect(vec.start + i * 4, `string ${i}`), `string ${i} of vector ${slot}`);
    }
    return out;
  }

  /** Copies `size` bytes at an absolute position (for structs inside vectors). */
  copy(position: number, size: number): Uint8Array {
    return this.bytes.slice(position, position + size);
  }
}

/**
 * Runs a decoder and turns any stray runtime error (a RangeError from a bad length, a BigInt
 * overflow) into CORRUPT_OBJECT: callers get typed errors only.
 */
export function decodeGuarded<T>(what: string, where: string | undefined, decode: () => T): T {
  try {
    return decode();
  } catch (err) {
    if (isFloeError(err)) throw err;
    throw floeError('CORRUPT_OBJECT', `cannot decode ${what}: ${(err as Error)?.message ?? String(err)}`, { where, cause: err });
  }
}
