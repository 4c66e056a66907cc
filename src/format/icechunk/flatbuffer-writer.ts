// Helpers over the flatbuffers JS Builder for the shapes Icechunk uses: inline id structs,
// vectors of structs / offsets / scalars. Builders write back to front, so every vector is
// pushed in reverse. Field order inside a table follows what flatc-generated `create` functions
// do (largest fields first, reverse declaration order within a size), which is how the
// reference writes and what makes payloads byte-identical.
import { Builder, type Offset } from 'flatbuffers';
import { FILE_IDENTIFIER } from './framing.ts';

export function newBuilder(initialSize = 1024): Builder {
  return new Builder(initialSize);
}

/** Writes an inline struct of raw bytes (ObjectId12/ObjectId8) into the current table. */
export function addIdField(b: Builder, slot: number, bytes: Uint8Array): void {
  b.prep(1, bytes.length);
  pushBytes(b, bytes);
  b.addFieldStruct(slot, b.offset(), 0);
}

/**
 * A uint64 field (default 0) from a JS number, written as the runtime's addFieldInt64 would but
 * without a BigInt per call: manifests write two per chunk ref.
 */
export function addU64Field(b: Builder, slot: number, value: number): void {
  if (value === 0) return;
  b.prep(8, 0);
  // The builder writes back to front: the high word lands after the low word (little-endian).
  b.writeInt32(Math.floor(value / 0x100000000) | 0);
  b.writeInt32(value % 0x100000000 | 0);
  b.slot(slot);
}

export function createOffsetVector(b: Builder, offsets: readonly Offset[]): Offset {
  b.startVector(4, offsets.length, 4);
  // In range: i runs from length - 1 down to 0. (Per ref in a manifest: no check per element.)
  for (let i = offsets.length - 1; i >= 0; i--) b.addOffset(offsets[i]!);
  return b.endVector();
}

export function createU32Vector(b: Builder, values: ArrayLike<number>): Offset {
  b.startVector(4, values.length, 4);
  // In range: i runs from length - 1 down to 0. (Each ref's index: no check per element.)
  for (let i = values.length - 1; i >= 0; i--) b.addInt32(values[i]! | 0);
  return b.endVector();
}

export function createU16Vector(b: Builder, values: readonly number[]): Offset {
  b.startVector(2, values.length, 2);
  for (const value of values.toReversed()) b.addInt16(value);
  return b.endVector();
}

/** A vector of fixed-size structs; `write` pushes one struct's fields back to front. */
export function createStructVector<T>(
  b: Builder,
  items: readonly T[],
  size: number,
  alignment: number,
  write: (b: Builder, item: T) => void,
): Offset {
  b.startVector(size, items.length, alignment);
  for (const item of items.toReversed()) write(b, item);
  return b.endVector();
}

/**
 * Pushes raw bytes (already inside a struct being built) back to front: four at a time where the
 * length allows (ids are 12 or 8 bytes), as little-endian words, which lays out the same bytes.
 */
export function pushBytes(b: Builder, bytes: Uint8Array): void {
  if (bytes.length % 4 === 0) {
    for (let i = bytes.length - 4; i >= 0; i -= 4) {
      b.writeInt32((bytes[i] ?? 0) | ((bytes[i + 1] ?? 0) << 8) | ((bytes[i + 2] ?? 0) << 16) | ((bytes[i + 3] ?? 0) << 24));
    }
    return;
  }
  // In range: i runs from length - 1 down to 0. (Every id of every ref: no check per byte.)
  for (let i = bytes.length - 1; i >= 0; i--) b.writeInt8(bytes[i]!);
}

export function finishPayload(b: Builder, root: Offset): Uint8Array {
  b.finish(root, FILE_IDENTIFIER);
  return b.asUint8Array().slice();
}

/**
 * A deduplicated string, as the reference writes metadata and dimension names. The JS runtime's
 * createSharedString returns offset 0 (= "absent") for '', so the empty string is written plainly.
 */
export function sharedString(b: Builder, s: string): Offset {
  return s === '' ? b.createString(s) : b.createSharedString(s);
}

/**
 * `b.createString(s)` without the runtime's TextEncoder allocation when `s` is ASCII (its UTF-8
 * is its char codes): the same bytes, written in place. A repo info file writes one message per
 * snapshot on every commit, and encoding them was a third of that file's encoding time.
 */
export function createAsciiString(b: Builder, s: string): Offset {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) > 0x7f) return b.createString(s);
  b.addInt8(0); // the terminating NUL, as createString writes it
  b.startVector(1, s.length, 1);
  for (let i = s.length - 1; i >= 0; i--) b.writeInt8(s.charCodeAt(i));
  return b.endVector();
}
