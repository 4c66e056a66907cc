// Metadata values (snapshot properties, repository metadata) are JSON values on the wire:
// FlexBuffers in spec-2 files, MessagePack in spec-1 files. The model holds the decoded value so
// code above this layer never sees the encoding; the spec byte of each file picks the codec.
import { encode as flexEncode, toObject as flexToObject } from 'flatbuffers/mjs/flexbuffers.js';
import { floeError, isFloeError } from '../../errors.ts';
import type { SpecVersion } from './header.ts';
import { decodeMsgpack, encodeMsgpack } from './msgpack.ts';

/** A JSON value; integers beyond 2^53 decode as bigint rather than lose digits. */
export type MetadataValue =
  | null
  | boolean
  | number
  | bigint
  | string
  | MetadataValue[]
  | { [key: string]: MetadataValue };

export interface MetadataItem {
  name: string;
  value: MetadataValue;
}

export function decodeFlexbuffer(bytes: Uint8Array, where?: string): MetadataValue {
  try {
    // toObject wants an ArrayBuffer starting at the value, so copy the view out.
    return normalizeFlex(flexToObject(bytes.slice().buffer));
  } catch (err) {
    if (isFloeError(err)) throw err;
    throw floeError('CORRUPT_OBJECT', `malformed FlexBuffers value: ${(err as Error)?.message ?? err}`, { where, cause: err });
  }
}

function normalizeFlex(value: unknown): MetadataValue {
  if (value === null || value === undefined) return null;
  if (typeof value === 'bigint') {
    return value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : value;
  }
  if (typeof value === 'boolean' || typeof value === 'number' || typeof value === 'string') return value;
  if (Array.isArray(value)) return value.map(normalizeFlex);
  if (value instanceof Uint8Array) {
    throw floeError('UNSUPPORTED', 'FlexBuffers blob values are not JSON metadata');
  }
  if (typeof value === 'object') {
    const out: { [key: string]: MetadataValue } = {};
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      Object.defineProperty(out, k, { value: normalizeFlex(v), enumerable: true, writable: true, configurable: true });
    }
    return out;
  }
  throw floeError('CORRUPT_OBJECT', `FlexBuffers value of type ${typeof value} is not JSON`);
}

export function encodeFlexbuffer(value: MetadataValue): Uint8Array {
  return flexEncode(toFlexInput(value));
}

// The flatbuffers FlexBuffers builder cannot write bigint; integers past 2^53 are refused
// rather than silently rounded.
function toFlexInput(value: MetadataValue): unknown {
  if (typeof value === 'bigint') {
    if (value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER)) return Number(value);
    throw floeError('UNSUPPORTED', `metadata integer ${value} is beyond 2^53; FlexBuffers writing supports safe integers only`);
  }
  if (Array.isArray(value)) return value.map(toFlexInput);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, toFlexInput(v)]));
  }
  return value;
}

export function decodeMetadataValue(bytes: Uint8Array, spec: SpecVersion, where?: string): MetadataValue {
  return spec === 1 ? decodeMsgpack(bytes, where) : decodeFlexbuffer(bytes, where);
}

export function encodeMetadataValue(value: MetadataValue, spec: SpecVersion): Uint8Array {
  return spec === 1 ? encodeMsgpack(value) : encodeFlexbuffer(value);
}

/** Sorted by name in UTF-8 byte order, as the schema requires. */
export function sortMetadata(items: readonly MetadataItem[]): MetadataItem[] {
  return [...items].sort((a, b) => compareUtf8(a.name, b.name));
}

const encoder = new TextEncoder();
/** Ascending UTF-8 byte order (differs from JS string order for astral characters). */
export function compareUtf8(a: string, b: string): number {
  if (a === b) return 0;
  const x = encoder.encode(a);
  const y = encoder.encode(b);
  const n = Math.min(x.length, y.length);
  for (let i = 0; i < n; i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
  return x.length - y.length;
}
