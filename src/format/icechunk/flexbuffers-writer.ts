// A FlexBuffers writer that lays bytes out the way the reference's Rust `flexbuffers` crate
// (serde serializer) does, so values it wrote re-encode byte-identically:
// - keys are written once (pooled) when first pushed, strings and blobs when pushed; scalars
//   wait on a stack until their vector or map is stored, after its children;
// - a map sorts its entries by key bytes, stores a key vector, then the values with their types;
// - non-negative integers are UInt and negative ones Int (serde_json numbers), other numbers
//   Float; a vector whose elements share a numeric, bool or key type is a typed vector (fixed
//   typed for 2-4 numbers); every slot takes the smallest width that fits.
import { floeError } from '../../errors.ts';
import { limitExceeded } from '../limits.ts';
import { compareSequences } from '../indexing.ts';
import { floatWidth, FlexType, intWidth, uintWidth, type FlexValue, type WidthCode } from './flexbuffers-types.ts';

export interface FlexEncodeOptions {
  /**
   * Push map entries in sorted key order (what serde_json maps do) instead of the object's own
   * order (what serde structs do, and what the reader yields for a value the reference wrote).
   */
  sortKeys?: boolean;
}

/** A value on the stack: scalars carry their value, the rest point back at their data. */
interface Scalar {
  type: number;
  scalar: number | bigint;
  width: WidthCode;
}
interface Ref {
  type: number;
  address: number;
  childWidth: WidthCode;
  keyBytes?: Uint8Array;
}
type Pending = Scalar | Ref;

const encoder = new TextEncoder();
const MAX_U64 = (1n << 64n) - 1n;
const MIN_I64 = -(1n << 63n);

export function encodeFlexValue(value: FlexValue, options: FlexEncodeOptions = {}): Uint8Array {
  const w = new FlexWriter(options.sortKeys ?? false);
  w.push(value, 0);
  return w.finish();
}

class FlexWriter {
  private buf = new Uint8Array(256);
  private view = new DataView(this.buf.buffer);
  private len = 0;
  private readonly stack: Pending[] = [];
  private readonly keyPool = new Map<string, number>();

  constructor(private readonly sortKeys: boolean) {}

  private reserve(n: number): void {
    if (this.len + n <= this.buf.length) return;
    const next = new Uint8Array(Math.max(this.buf.length * 2, this.len + n));
    next.set(this.buf.subarray(0, this.len));
    this.buf = next;
    this.view = new DataView(next.buffer);
  }

  private align(width: WidthCode): void {
    const bytes = 1 << width;
    const pad = (bytes - (this.len % bytes)) % bytes;
    this.reserve(pad);
    this.buf.fill(0, this.len, this.len + pad);
    this.len += pad;
  }

  private bytes(data: Uint8Array): void {
    this.reserve(data.length);
    this.buf.set(data, this.len);
    this.len += data.length;
  }

  push(value: FlexValue, depth: number): void {
    if (depth > 512) throw limitExceeded('json-depth', 512, 'a metadata value nests deeper than 512 levels, which FlexBuffers readers refuse; flatten it');
    if (value === null) this.stack.push({ type: FlexType.Null, scalar: 0, width: 0 });
    else if (typeof value === 'boolean') this.stack.push({ type: FlexType.Bool, scalar: value ? 1 : 0, width: 0 });
    else if (typeof value === 'number') this.stack.push(numberValue(value));
    else if (typeof value === 'bigint') this.stack.push(bigintValue(value));
    else if (typeof value === 'string') this.stack.push(this.blob(encoder.encode(value), FlexType.String));
    else if (value instanceof Uint8Array) this.stack.push(this.blob(value, FlexType.Blob));
    else if (Array.isArray(value)) {
      const mark = this.stack.length;
      for (const item of value) this.push(item, depth + 1);
      this.stack.push(this.storeVector(this.stack.splice(mark)));
    } else {
      const mark = this.stack.length;
      const entries = Object.entries(value);
      if (this.sortKeys) entries.sort(([a], [b]) => compareKeyBytes(a, b));
      for (const [key, item] of entries) {
        this.pushKey(key);
        this.push(item, depth + 1);
      }
      this.stack.push(this.storeMap(this.stack.splice(mark)));
    }
  }

  private pushKey(key: string): void {
    const keyBytes = encoder.encode(key);
    if (keyBytes.includes(0)) throw floeError('UNSUPPORTED', `FlexBuffers map keys cannot contain NUL: ${JSON.stringify(key)}`);
    let address = this.keyPool.get(key);
    if (address === undefined) {
      address = this.len;
      this.bytes(keyBytes);
      this.bytes(Uint8Array.of(0));
      this.keyPool.set(key, address);
    }
    this.stack.push({ type: FlexType.Key, address, childWidth: 0, keyBytes });
  }

  /** Length-prefixed bytes; strings also get a NUL terminator. */
  private blob(data: Uint8Array, type: number): Ref {
    const width = uintWidth(data.length);
    this.align(width);
    this.writeUInt(data.length, width);
    const address = this.len;
    this.bytes(data);
    if (type === FlexType.String) this.bytes(Uint8Array.of(0));
    return { type, address, childWidth: width };
  }

  private storeMap(entries: Pending[]): Ref {
    // The stack holds key, value, key, value, ... (push puts a key before each value).
    const pairs: [Pending, Pending][] = [];
    let key: Pending | undefined;
    for (const entry of entries) {
      if (key === undefined) key = entry;
      else {
        pairs.push([key, entry]);
        key = undefined;
      }
    }
    if (key !== undefined) throw floeError('INVALID_ARGUMENT', 'a FlexBuffers map was left with a key and no value');
    pairs.sort((a, b) => compareBytes(keyBytesOf(a[0]), keyBytesOf(b[0])));
    const keys = this.storeVector(pairs.map((p) => p[0]));
    return this.storeElements(pairs.map((p) => p[1]), FlexType.Map, keys);
  }

  private storeVector(items: Pending[]): Ref {
    return this.storeElements(items, vectorType(items));
  }

  /** Stores a vector (or a map's values after its `keys` prefix) at the smallest width. */
  private storeElements(items: Pending[], type: number, keys?: Ref): Ref {
    const fixed = type >= FlexType.VectorInt2 && type <= FlexType.VectorFloat4;
    const prefix = keys ? 3 : fixed ? 0 : 1;
    let width: WidthCode = 0;
    if (keys) width = maxWidth(width, widthInVector(keys, this.len, 0));
    if (!fixed) width = maxWidth(width, uintWidth(items.length));
    for (const [i, item] of items.entries()) width = maxWidth(width, widthInVector(item, this.len, i + prefix));
    this.align(width);
    if (keys) {
      this.writeSlot(keys, width);
      this.writeUInt(1 << keys.childWidth, width);
    }
    if (!fixed) this.writeUInt(items.length, width);
    const address = this.len;
    for (const item of items) this.writeSlot(item, width);
    if (type === FlexType.Map || type === FlexType.Vector) {
      this.reserve(items.length);
      for (const item of items) this.buf[this.len++] = packedType(item, width);
    }
    return { type, address, childWidth: width };
  }

  private writeUInt(x: number | bigint, width: WidthCode): void {
    this.reserve(1 << width);
    const at = this.len;
    if (width === 0) this.view.setUint8(at, Number(x));
    else if (width === 1) this.view.setUint16(at, Number(x), true);
    else if (width === 2) this.view.setUint32(at, Number(x), true);
    else this.view.setBigUint64(at, BigInt(x), true);
    this.len += 1 << width;
  }

  private writeSlot(item: Pending, width: WidthCode): void {
    if ('address' in item) return this.writeUInt(this.len - item.address, width);
    this.reserve(1 << width);
    const at = this.len;
    if (item.type === FlexType.Float) {
      // Width >= 2 here: a float's own width is at least 32 bits and slots take the max.
      if (width === 2) this.view.setFloat32(at, Number(item.scalar), true);
      else this.view.setFloat64(at, Number(item.scalar), true);
      this.len += 1 << width;
    } else if (item.type === FlexType.Int) {
      if (width === 3) this.view.setBigInt64(at, BigInt(item.scalar), true);
      else if (width === 2) this.view.setInt32(at, Number(item.scalar), true);
      else if (width === 1) this.view.setInt16(at, Number(item.scalar), true);
      else this.view.setInt8(at, Number(item.scalar));
      this.len += 1 << width;
    } else this.writeUInt(item.scalar, width);
  }

  finish(): Uint8Array {
    const root = this.stack.pop()!;
    const width = widthInVector(root, this.len, 0);
    this.align(width);
    this.writeSlot(root, width);
    this.bytes(Uint8Array.of(packedType(root, width), 1 << width));
    return this.buf.slice(0, this.len);
  }
}

function numberValue(x: number): Pending {
  if (Number.isSafeInteger(x) && !Object.is(x, -0)) {
    return x >= 0 ? { type: FlexType.UInt, scalar: x, width: uintWidth(x) } : { type: FlexType.Int, scalar: x, width: intWidth(x) };
  }
  return { type: FlexType.Float, scalar: x, width: floatWidth(x) };
}

function bigintValue(x: bigint): Pending {
  if (x > MAX_U64 || x < MIN_I64) throw floeError('UNSUPPORTED', `integer ${x} does not fit in 64 bits`);
  return x >= 0n ? { type: FlexType.UInt, scalar: x, width: uintWidth(x) } : { type: FlexType.Int, scalar: x, width: intWidth(x) };
}

/** Typed when all elements share a numeric, bool or key type; fixed typed for 2-4 numbers. */
function vectorType(items: readonly Pending[]): number {
  const first = items[0]?.type;
  if (first === undefined || items.some((i) => i.type !== first)) return FlexType.Vector;
  if (first === FlexType.Bool) return FlexType.VectorBool;
  if (first === FlexType.Key) return FlexType.VectorKey;
  if (first !== FlexType.Int && first !== FlexType.UInt && first !== FlexType.Float) return FlexType.Vector;
  const offset = first - FlexType.Int;
  if (items.length >= 2 && items.length <= 4) return FlexType.VectorInt2 + (items.length - 2) * 3 + offset;
  return FlexType.VectorInt + offset;
}

/** The width a value needs in slot `index` of a vector whose data would start at `start`. */
function widthInVector(item: Pending, start: number, index: number): WidthCode {
  if (!('address' in item)) return item.width;
  for (const width of [0, 1, 2] as const) {
    const bytes = 1 << width;
    const slot = start + ((bytes - (start % bytes)) % bytes) + index * bytes;
    if (uintWidth(slot - item.address) <= width) return width;
  }
  return 3;
}

function packedType(item: Pending, parentWidth: WidthCode): number {
  // Scalars are stored at their parent's width and say so; references carry their own.
  const width = 'address' in item ? item.childWidth : maxWidth(parentWidth, item.width);
  return (item.type << 2) | width;
}

function maxWidth(a: WidthCode, b: WidthCode): WidthCode {
  return a > b ? a : b;
}

function keyBytesOf(p: Pending): Uint8Array {
  return 'keyBytes' in p && p.keyBytes ? p.keyBytes : new Uint8Array();
}

function compareBytes(x: Uint8Array, y: Uint8Array): number {
  return compareSequences(x, y);
}

function compareKeyBytes(a: string, b: string): number {
  return compareBytes(encoder.encode(a), encoder.encode(b));
}
