// A bounds-checked FlexBuffers reader. Every offset, length and width is checked against the
// buffer before use, references point backwards, nesting is limited (so a forged cycle ends),
// and a budget on the values produced stops forged sharing (many slots pointing at one big
// subtree) from blowing up: damaged bytes end in CORRUPT_OBJECT, never a hang or a RangeError.
import { floeError } from '../../errors.ts';
import { fixedVectorShape, FlexType, isInlineType, typedVectorElement, type FlexValue } from './flexbuffers-types.ts';

const utf8 = new TextDecoder('utf-8', { fatal: true });
const MAX_DEPTH = 512;

export function decodeFlexValue(bytes: Uint8Array, where?: string): FlexValue {
  return new FlexReader(bytes, where).root();
}

/** A value found at `at`, stored with its parent's width, described by its packed type byte. */
interface Slot {
  at: number;
  parentWidth: number;
  packed: number;
}

class FlexReader {
  private readonly view: DataView;
  /** Output units left: one per value plus one per string byte. */
  private budget: number;

  constructor(
    private readonly bytes: Uint8Array,
    private readonly where: string | undefined,
  ) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.budget = bytes.length * 16 + (1 << 20);
  }

  /** The byte at `at`, which the bytes may not have. */
  private byte(at: number, what: string): number {
    const b = this.bytes[at];
    if (b === undefined) this.corrupt(`${what} at ${at} lies outside the ${this.bytes.length}-byte buffer`);
    return b;
  }

  private corrupt(what: string): never {
    throw floeError('CORRUPT_OBJECT', `malformed FlexBuffers value: ${what}; the object is damaged, restore it from a backup or re-create it`, {
      where: this.where,
    });
  }

  private check(at: number, size: number, what: string): void {
    if (!(at >= 0 && size >= 0 && at + size <= this.bytes.length)) this.corrupt(`${what} at ${at}+${size} lies outside the ${this.bytes.length}-byte buffer`);
  }

  private spend(units: number): void {
    this.budget -= units;
    if (this.budget < 0) this.corrupt('it expands to far more values than its size allows (forged shared references)');
  }

  root(): FlexValue {
    const n = this.bytes.length;
    if (n < 3) this.corrupt(`${n} bytes is too short`);
    const width = this.byte(n - 1, 'root width');
    if (width !== 1 && width !== 2 && width !== 4 && width !== 8) this.corrupt(`root width ${width}`);
    const at = n - 2 - width;
    this.check(at, width, 'root value');
    return this.value({ at, parentWidth: width, packed: this.byte(n - 2, 'root type') }, 0);
  }

  private uint(at: number, width: number): number | bigint {
    this.check(at, width, 'integer');
    switch (width) {
      case 1: return this.view.getUint8(at);
      case 2: return this.view.getUint16(at, true);
      case 4: return this.view.getUint32(at, true);
      case 8: return narrow(this.view.getBigUint64(at, true));
      default: return this.corrupt(`width ${width}`);
    }
  }

  private int(at: number, width: number): number | bigint {
    this.check(at, width, 'integer');
    switch (width) {
      case 1: return this.view.getInt8(at);
      case 2: return this.view.getInt16(at, true);
      case 4: return this.view.getInt32(at, true);
      case 8: return narrow(this.view.getBigInt64(at, true));
      default: return this.corrupt(`width ${width}`);
    }
  }

  private float(at: number, width: number): number {
    this.check(at, width, 'float');
    if (width === 4) return this.view.getFloat32(at, true);
    if (width === 8) return this.view.getFloat64(at, true);
    return this.corrupt(`a float of width ${width}`);
  }

  /** A length or offset: an unsigned integer that must be an exact JS number. */
  private size(at: number, width: number, what: string): number {
    const x = this.uint(at, width);
    return typeof x === 'number' ? x : this.corrupt(`${what} ${x} is impossibly large`);
  }

  /**
   * Follows the offset stored at `at`; targets never lie after the slot. An offset of 0 is
   * legal (an empty map's keys vector ends where the map starts); a forged self-reference is
   * stopped by the depth limit.
   */
  private target(at: number, width: number): number {
    const offset = this.size(at, width, 'offset');
    if (offset > at) this.corrupt(`offset ${offset} at ${at} points before the buffer`);
    return at - offset;
  }

  private value(slot: Slot, depth: number): FlexValue {
    if (depth > MAX_DEPTH) this.corrupt(`nesting deeper than ${MAX_DEPTH}`);
    this.spend(1);
    const type = slot.packed >> 2;
    const childWidth = 1 << (slot.packed & 3);
    if (isInlineType(type)) return this.scalar(type, slot.at, slot.parentWidth);
    const target = this.target(slot.at, slot.parentWidth);
    switch (type) {
      case FlexType.Key: return this.key(target);
      case FlexType.String: return this.string(target, childWidth);
      case FlexType.Blob: return this.blob(target, childWidth);
      case FlexType.IndirectInt: return this.scalar(FlexType.Int, target, childWidth);
      case FlexType.IndirectUInt: return this.scalar(FlexType.UInt, target, childWidth);
      case FlexType.IndirectFloat: return this.scalar(FlexType.Float, target, childWidth);
      case FlexType.Map: return this.map(target, childWidth, depth);
      case FlexType.Vector: return this.vector(target, childWidth, depth);
    }
    const element = typedVectorElement(type);
    if (element !== undefined) return this.typedVector(target, childWidth, element, this.length(target, childWidth), depth);
    const fixed = fixedVectorShape(type);
    if (fixed) return this.typedVector(target, childWidth, fixed.element, fixed.length, depth);
    return this.corrupt(`unknown type ${type}`);
  }

  private scalar(type: number, at: number, width: number): FlexValue {
    switch (type) {
      case FlexType.Null: return null;
      case FlexType.Bool: return this.uint(at, width) !== 0;
      case FlexType.Int: return this.int(at, width);
      case FlexType.UInt: return this.uint(at, width);
      default: return this.float(at, width);
    }
  }

  private length(target: number, width: number): number {
    return this.size(target - width, width, 'length');
  }

  private key(at: number): string {
    const end = this.bytes.indexOf(0, at);
    if (end < 0) this.corrupt(`key at ${at} has no terminator`);
    return this.utf8(at, end - at, 'key');
  }

  private string(at: number, width: number): string {
    const length = this.length(at, width);
    return this.utf8(at, length, 'string');
  }

  private utf8(at: number, length: number, what: string): string {
    this.check(at, length, what);
    this.spend(length);
    try {
      return utf8.decode(this.bytes.subarray(at, at + length));
    } catch {
      return this.corrupt(`${what} at ${at} is not UTF-8`);
    }
  }

  private blob(at: number, width: number): Uint8Array {
    const length = this.length(at, width);
    this.check(at, length, 'blob');
    this.spend(length);
    return this.bytes.slice(at, at + length);
  }

  /** Checks that an element area (plus its trailing type bytes) lies inside the buffer. */
  private checkElements(target: number, width: number, length: number, packedTypes: boolean): void {
    this.check(target, length * width + (packedTypes ? length : 0), `vector of ${length} elements`);
    this.spend(length);
  }

  private vector(target: number, width: number, depth: number): FlexValue[] {
    const length = this.length(target, width);
    this.checkElements(target, width, length, true);
    const types = target + length * width;
    const out = new Array<FlexValue>(length);
    for (let i = 0; i < length; i++) out[i] = this.value({ at: target + i * width, parentWidth: width, packed: this.byte(types + i, 'a vector element type') }, depth + 1);
    return out;
  }

  private typedVector(target: number, width: number, element: number, length: number, depth: number): FlexValue[] {
    this.checkElements(target, width, length, false);
    // Typed elements carry the vector's width; for keys and strings that is the offset width.
    const packed = (element << 2) | Math.log2(width);
    const out = new Array<FlexValue>(length);
    for (let i = 0; i < length; i++) out[i] = this.value({ at: target + i * width, parentWidth: width, packed }, depth + 1);
    return out;
  }

  private map(target: number, width: number, depth: number): { [key: string]: FlexValue } {
    const length = this.length(target, width);
    this.checkElements(target, width, length, true);
    const keysAt = this.target(target - 3 * width, width);
    const keyWidth = this.size(target - 2 * width, width, 'key width');
    if (keyWidth !== 1 && keyWidth !== 2 && keyWidth !== 4 && keyWidth !== 8) this.corrupt(`map key width ${keyWidth}`);
    if (this.length(keysAt, keyWidth) !== length) this.corrupt('a map has different numbers of keys and values');
    this.checkElements(keysAt, keyWidth, length, false);
    const types = target + length * width;
    const entries: { anchor: number; byValue: number; key: string; slot: Slot }[] = [];
    for (let i = 0; i < length; i++) {
      const keyAt = this.target(keysAt + i * keyWidth, keyWidth);
      const slot = { at: target + i * width, parentWidth: width, packed: this.byte(types + i, 'a map value type') };
      // Entries come out in the order the writer pushed them, which the bytes reveal: a writer
      // puts a new key, then its value's data, before the next entry. Re-encoding in this order
      // reproduces the original bytes (the reference pushes struct fields in declaration order).
      const valueAt = isInlineType(slot.packed >> 2) ? -1 : this.target(slot.at, width);
      // An empty vector, map or blob has no bytes after its header, so its address is where the
      // next key starts: on a tie the value was finished first.
      entries.push({ anchor: Math.max(keyAt, valueAt), byValue: valueAt > keyAt ? 0 : 1, key: this.key(keyAt), slot });
    }
    entries.sort((a, b) => a.anchor - b.anchor || a.byValue - b.byValue);
    const out: { [key: string]: FlexValue } = {};
    for (const { key, slot } of entries) {
      // defineProperty: a key named __proto__ must become data, not the prototype.
      Object.defineProperty(out, key, { value: this.value(slot, depth + 1), enumerable: true, writable: true, configurable: true });
    }
    return out;
  }
}

/** 64-bit integers become numbers when exact, else stay bigint. */
function narrow(x: bigint): number | bigint {
  return x >= BigInt(Number.MIN_SAFE_INTEGER) && x <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(x) : x;
}
