// A small MessagePack codec for the JSON-compatible metadata values of spec-1 files (the
// reference wrote them with rmp-serde from serde_json values). Only the JSON subset is
// accepted: bin and ext values are refused rather than guessed at.
import { floeError } from '../../errors.ts';
import type { MetadataValue } from './metadata-value-types.ts';

const utf8 = new TextDecoder('utf-8', { fatal: true });
const MAX_DEPTH = 64;

export function decodeMsgpack(bytes: Uint8Array, where?: string): MetadataValue {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let at = 0;
  const fail = (what: string): never => {
    throw floeError('CORRUPT_OBJECT', `malformed MessagePack metadata value: ${what}`, { where });
  };
  const need = (n: number): void => {
    if (at + n > bytes.length) fail(`truncated at byte ${at}`);
  };
  const str = (n: number): string => {
    need(n);
    const s = bytes.subarray(at, at + n);
    at += n;
    try {
      return utf8.decode(s);
    } catch {
      return fail('string is not valid UTF-8');
    }
  };
  const int64 = (signed: boolean): number | bigint => {
    need(8);
    const v = signed ? view.getBigInt64(at) : view.getBigUint64(at);
    at += 8;
    return v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v;
  };
  const array = (n: number, depth: number): MetadataValue[] => {
    if (n > bytes.length - at) fail(`array of ${n} items in ${bytes.length - at} bytes`);
    const out: MetadataValue[] = [];
    for (let i = 0; i < n; i++) out.push(value(depth + 1));
    return out;
  };
  const map = (n: number, depth: number): { [key: string]: MetadataValue } => {
    if (n > bytes.length - at) fail(`map of ${n} entries in ${bytes.length - at} bytes`);
    const out: { [key: string]: MetadataValue } = {};
    for (let i = 0; i < n; i++) {
      const key = value(depth + 1);
      if (typeof key !== 'string') fail('map key is not a string');
      Object.defineProperty(out, key as string, { value: value(depth + 1), enumerable: true, writable: true, configurable: true });
    }
    return out;
  };
  const u = (n: 1 | 2 | 4): number => {
    need(n);
    const v = n === 1 ? view.getUint8(at) : n === 2 ? view.getUint16(at) : view.getUint32(at);
    at += n;
    return v;
  };
  const value = (depth: number): MetadataValue => {
    if (depth > MAX_DEPTH) fail(`nested deeper than ${MAX_DEPTH}`);
    need(1);
    const b = view.getUint8(at++);
    if (b <= 0x7f) return b;
    if (b >= 0xe0) return b - 0x100;
    if ((b & 0xf0) === 0x80) return map(b & 0x0f, depth);
    if ((b & 0xf0) === 0x90) return array(b & 0x0f, depth);
    if ((b & 0xe0) === 0xa0) return str(b & 0x1f);
    switch (b) {
      case 0xc0: return null;
      case 0xc2: return false;
      case 0xc3: return true;
      case 0xca: { need(4); const v = view.getFloat32(at); at += 4; return v; }
      case 0xcb: { need(8); const v = view.getFloat64(at); at += 8; return v; }
      case 0xcc: return u(1);
      case 0xcd: return u(2);
      case 0xce: return u(4);
      case 0xcf: return int64(false);
      case 0xd0: { need(1); const v = view.getInt8(at); at += 1; return v; }
      case 0xd1: { need(2); const v = view.getInt16(at); at += 2; return v; }
      case 0xd2: { need(4); const v = view.getInt32(at); at += 4; return v; }
      case 0xd3: return int64(true);
      case 0xd9: return str(u(1));
      case 0xda: return str(u(2));
      case 0xdb: return str(u(4));
      case 0xdc: return array(u(2), depth);
      case 0xdd: return array(u(4), depth);
      case 0xde: return map(u(2), depth);
      case 0xdf: return map(u(4), depth);
      default:
        throw floeError('UNSUPPORTED', `MessagePack type 0x${b.toString(16)} (bin/ext) is not a JSON value`, { where });
    }
  };
  const result = value(0);
  if (at !== bytes.length) fail(`${bytes.length - at} trailing bytes`);
  return result;
}

/** Encodes with the most compact forms, as rmp-serde does for serde_json values. */
export function encodeMsgpack(input: MetadataValue): Uint8Array {
  const out: number[] = [];
  const push = (...b: number[]) => { for (const x of b) out.push(x); };
  const be = (value: number | bigint, size: 1 | 2 | 4 | 8, signed: boolean) => {
    const dv = new DataView(new ArrayBuffer(size));
    if (size === 8) (signed ? dv.setBigInt64(0, BigInt(value)) : dv.setBigUint64(0, BigInt(value)));
    else if (size === 4) (signed ? dv.setInt32(0, Number(value)) : dv.setUint32(0, Number(value)));
    else if (size === 2) (signed ? dv.setInt16(0, Number(value)) : dv.setUint16(0, Number(value)));
    else (signed ? dv.setInt8(0, Number(value)) : dv.setUint8(0, Number(value)));
    push(...new Uint8Array(dv.buffer));
  };
  const int = (v: number | bigint) => {
    if (v >= 0) {
      if (v <= 0x7f) push(Number(v));
      else if (v <= 0xff) { push(0xcc); be(v, 1, false); }
      else if (v <= 0xffff) { push(0xcd); be(v, 2, false); }
      else if (v <= 0xffffffff) { push(0xce); be(v, 4, false); }
      else { push(0xcf); be(v, 8, false); }
    } else if (v >= -32) push(Number(v) + 0x100);
    else if (v >= -0x80) { push(0xd0); be(v, 1, true); }
    else if (v >= -0x8000) { push(0xd1); be(v, 2, true); }
    else if (v >= -0x80000000) { push(0xd2); be(v, 4, true); }
    else { push(0xd3); be(v, 8, true); }
  };
  const len = (n: number, fix: number, fixMax: number, c8: number | undefined, c16: number, c32: number) => {
    if (n <= fixMax) push(fix | n);
    else if (c8 !== undefined && n <= 0xff) push(c8, n);
    else if (n <= 0xffff) { push(c16); be(n, 2, false); }
    else { push(c32); be(n, 4, false); }
  };
  const write = (v: MetadataValue) => {
    if (v === null) push(0xc0);
    else if (typeof v === 'boolean') push(v ? 0xc3 : 0xc2);
    else if (typeof v === 'bigint') int(v);
    else if (typeof v === 'number') {
      if (Number.isSafeInteger(v) && !Object.is(v, -0)) int(v);
      else { push(0xcb); const dv = new DataView(new ArrayBuffer(8)); dv.setFloat64(0, v); push(...new Uint8Array(dv.buffer)); }
    } else if (typeof v === 'string') {
      const b = new TextEncoder().encode(v);
      len(b.length, 0xa0, 31, 0xd9, 0xda, 0xdb);
      push(...b);
    } else if (Array.isArray(v)) {
      len(v.length, 0x90, 15, undefined, 0xdc, 0xdd);
      v.forEach(write);
    } else {
      const entries = Object.entries(v);
      len(entries.length, 0x80, 15, undefined, 0xde, 0xdf);
      for (const [k, item] of entries) { write(k); write(item); }
    }
  };
  write(input);
  return Uint8Array.from(out);
}
