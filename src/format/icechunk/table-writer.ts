// A flatbuffer writer for the hot files (manifests): the layout of the flatbuffers runtime's
// Builder, byte for byte, without its per-call overhead. Both write back to front; this one keeps
// the bytes in one Uint8Array with a DataView, finds an identical earlier vtable through a Map
// (keyed by a hash of its contents) instead of a linear search that re-reads the buffer, and
// writes a table's vtable only when it is new. Alignment and vtable sharing follow the Builder's rules, so
// the payloads are identical: test/property/table-writer.property.test.ts checks that against the
// runtime on random manifests.
import { floeError } from '../../errors.ts';
import { FILE_IDENTIFIER } from './framing.ts';

/** An offset counted from the end of the buffer, as the Builder's are. */
export type TableOffset = number;

const MAX_FIELDS = 16;
/** The Builder's limit: it refuses to grow past 2 GiB. */
const MAX_CAPACITY = 2 ** 31;

export class TableWriter {
  private bytes: Uint8Array;
  private view: DataView;
  /** Index of the first written byte; bytes.length - space is the current offset. */
  private space: number;
  private minAlign = 1;
  private readonly fieldAt = new Int32Array(MAX_FIELDS);
  private fieldCount = 0;
  private objectStart = 0;
  /** Vtables written so far by a hash of their contents: each content once, the first written. */
  private readonly vtables = new Map<number, { codes: Uint16Array; offset: TableOffset }[]>();
  private readonly codes = new Uint16Array(MAX_FIELDS + 2);

  constructor(initialSize = 1024) {
    this.bytes = new Uint8Array(Math.max(64, initialSize));
    this.view = new DataView(this.bytes.buffer);
    this.space = this.bytes.length;
  }

  offset(): TableOffset {
    return this.bytes.length - this.space;
  }

  /** Pads so that `size` is aligned after `additional` more bytes, making room for them first. */
  prep(size: number, additional: number): void {
    if (size > this.minAlign) this.minAlign = size;
    const pad = -(this.offset() + additional) & (size - 1);
    if (this.space < pad + size + additional) this.grow(pad + size + additional);
    // Padding is zeroed: a dropped vtable may have left bytes there.
    for (let i = 0; i < pad; i++) this.bytes[--this.space] = 0;
  }

  private grow(needed: number): void {
    const used = this.offset();
    let capacity = this.bytes.length * 2;
    while (capacity - used < needed) capacity *= 2;
    if (capacity > MAX_CAPACITY) throw floeError('INVALID_ARGUMENT', `a flatbuffer of more than ${MAX_CAPACITY} bytes cannot be written; split the data over more files`, {});
    const bytes = new Uint8Array(capacity);
    bytes.set(this.bytes.subarray(this.space), capacity - used);
    this.bytes = bytes;
    this.view = new DataView(bytes.buffer);
    this.space = capacity - used;
  }

  addInt8(value: number): void {
    this.prep(1, 0);
    this.view.setInt8(--this.space, value);
  }

  addInt16(value: number): void {
    this.prep(2, 0);
    this.view.setInt16((this.space -= 2), value, true);
  }

  addInt32(value: number): void {
    this.prep(4, 0);
    this.view.setInt32((this.space -= 4), value, true);
  }

  /** A uint64 from a JS number (< 2^53), as the Builder's addInt64 lays it out. */
  addUint64(value: number): void {
    this.prep(8, 0);
    this.view.setUint32((this.space -= 4), Math.floor(value / 0x100000000), true);
    this.view.setUint32((this.space -= 4), value % 0x100000000, true);
  }

  addOffset(target: TableOffset): void {
    this.prep(4, 0);
    // Relative to where the offset itself lands: 4 bytes on from here.
    const relative = this.offset() + 4 - target;
    this.view.setInt32((this.space -= 4), relative, true);
  }

  /** Raw bytes of an inline struct; the caller aligns (ids are byte structs: no alignment). */
  addStructBytes(value: Uint8Array): void {
    this.prep(1, value.length);
    const at = (this.space -= value.length);
    // A loop, not bytes.set: for 12 bytes set's fixed cost is most of a ref's encoding.
    for (let i = 0; i < value.length; i++) this.bytes[at + i] = value[i] ?? 0;
  }

  startObject(fieldCount: number): void {
    if (fieldCount > MAX_FIELDS) throw floeError('INVALID_ARGUMENT', `a table of ${fieldCount} fields is more than this writer supports (${MAX_FIELDS})`, {});
    this.fieldAt.fill(0, 0, fieldCount);
    this.fieldCount = fieldCount;
    this.objectStart = this.offset();
  }

  /** Records that field `slot` was just written. */
  slot(slot: number): void {
    this.fieldAt[slot] = this.offset();
  }

  endObject(): TableOffset {
    this.addInt32(0);
    const table = this.offset();
    let used = this.fieldCount;
    while (used > 0 && this.fieldAt[used - 1] === 0) used--;
    // The vtable's int16s in memory order: its length, the table's size, then each field's
    // offset. Built in a reused array: most tables repeat an earlier vtable, and then nothing is
    // allocated.
    const codes = this.codes;
    const length = used + 2;
    codes[0] = length * 2;
    codes[1] = (table - this.objectStart) & 0xffff;
    for (let i = 0; i < used; i++) {
      const at = this.fieldAt[i] ?? 0;
      codes[i + 2] = at === 0 ? 0 : (table - at) & 0xffff;
    }
    const vtable = this.findVtable(length) ?? this.writeVtable(length);
    this.view.setInt32(this.bytes.length - table, vtable - table, true);
    return table;
  }

  /** The first vtable written with the contents of `codes`, if any (found by a hash, no allocation). */
  private findVtable(length: number): TableOffset | undefined {
    const bucket = this.vtables.get(this.hashCodes(length));
    if (bucket === undefined) return undefined;
    for (const known of bucket) if (this.sameCodes(known.codes, length)) return known.offset;
    return undefined;
  }

  private writeVtable(length: number): TableOffset {
    for (let i = length - 1; i >= 0; i--) this.addInt16(this.codes[i] ?? 0);
    const offset = this.offset();
    const hash = this.hashCodes(length);
    const bucket = this.vtables.get(hash) ?? [];
    bucket.push({ codes: this.codes.slice(0, length), offset });
    this.vtables.set(hash, bucket);
    return offset;
  }

  private hashCodes(length: number): number {
    let hash = 0;
    for (let i = 0; i < length; i++) hash = (Math.imul(hash, 31) + (this.codes[i] ?? 0)) | 0;
    return hash;
  }

  private sameCodes(known: Uint16Array, length: number): boolean {
    if (known.length !== length) return false;
    for (let i = 0; i < length; i++) if (this.codes[i] !== known[i]) return false;
    return true;
  }

  startVector(elementSize: number, count: number, alignment: number): void {
    this.prep(4, elementSize * count);
    this.prep(alignment, elementSize * count);
  }

  endVector(count: number): TableOffset {
    this.view.setInt32((this.space -= 4), count, true);
    return this.offset();
  }

  createByteVector(value: Uint8Array): TableOffset {
    this.startVector(1, value.length, 1);
    this.bytes.set(value, (this.space -= value.length));
    return this.endVector(value.length);
  }

  createString(value: string): TableOffset {
    const utf8 = new TextEncoder().encode(value);
    this.addInt8(0);
    return this.createByteVector(utf8);
  }

  createOffsetVector(offsets: ArrayLike<TableOffset>): TableOffset {
    this.startVector(4, offsets.length, 4);
    for (let i = offsets.length - 1; i >= 0; i--) this.addOffset(offsets[i] ?? 0);
    return this.endVector(offsets.length);
  }

  createU32Vector(values: ArrayLike<number>): TableOffset {
    this.startVector(4, values.length, 4);
    for (let i = values.length - 1; i >= 0; i--) this.addInt32((values[i] ?? 0) | 0);
    return this.endVector(values.length);
  }

  /**
   * Ends the buffer with the root offset and Icechunk's file identifier. Returns a view of this
   * writer's buffer, not a copy: a copy of a 1M-ref manifest is another 44 MB allocation, and
   * large allocations are what start full collections of the caller's (large) heap.
   */
  finish(root: TableOffset): Uint8Array {
    this.prep(this.minAlign, 8);
    for (let i = FILE_IDENTIFIER.length - 1; i >= 0; i--) this.addInt8(FILE_IDENTIFIER.charCodeAt(i));
    this.prep(this.minAlign, 4);
    this.addOffset(root);
    return this.bytes.subarray(this.space);
  }
}
