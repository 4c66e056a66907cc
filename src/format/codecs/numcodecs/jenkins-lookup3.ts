// `numcodecs.jenkins_lookup3` (numcodecs' JenkinsLookup3, HDF5's metadata checksum): Bob Jenkins'
// lookup3 hash (hashlittle, bytes taken as little-endian words) of an optional `prefix` and the
// payload, seeded with `initval`, appended as 4 bytes little-endian.
import { checkKeys, invalidConfig, readInt, shown } from '../bytes-codec-support.ts';
import type { BytesCodecImplementation } from '../codec-implementation.ts';
import { checksumCodec } from './checksum32.ts';

const NAME = 'numcodecs.jenkins_lookup3';

const rot = (x: number, k: number): number => (x << k) | (x >>> (32 - k));

/** The 32-bit lookup3 hash of `data` with seed `initval`. */
export function jenkinsLookup3(data: Uint8Array, initval: number): number {
  let a = (0xdeadbeef + data.length + initval) | 0;
  let b = a;
  let c = a;
  let at = 0;
  let left = data.length;
  while (left > 12) {
    a = (a + littleWord(data, at)) | 0;
    b = (b + littleWord(data, at + 4)) | 0;
    c = (c + littleWord(data, at + 8)) | 0;
    // mix(a, b, c)
    a = (a - c) | 0; a ^= rot(c, 4); c = (c + b) | 0;
    b = (b - a) | 0; b ^= rot(a, 6); a = (a + c) | 0;
    c = (c - b) | 0; c ^= rot(b, 8); b = (b + a) | 0;
    a = (a - c) | 0; a ^= rot(c, 16); c = (c + b) | 0;
    b = (b - a) | 0; b ^= rot(a, 19); a = (a + c) | 0;
    c = (c - b) | 0; c ^= rot(b, 4); b = (b + a) | 0;
    at += 12;
    left -= 12;
  }
  if (left === 0) return c >>> 0;
  // The last 1-12 bytes, the missing ones of the last words read as zero.
  const tail = data.subarray(at);
  a = (a + littleWord(tail, 0)) | 0;
  b = (b + littleWord(tail, 4)) | 0;
  c = (c + littleWord(tail, 8)) | 0;
  // final(a, b, c)
  c ^= b; c = (c - rot(b, 14)) | 0;
  a ^= c; a = (a - rot(c, 11)) | 0;
  b ^= a; b = (b - rot(a, 25)) | 0;
  c ^= b; c = (c - rot(b, 16)) | 0;
  a ^= c; a = (a - rot(c, 4)) | 0;
  b ^= a; b = (b - rot(a, 14)) | 0;
  c ^= b; c = (c - rot(b, 24)) | 0;
  return c >>> 0;
}

/** The little-endian word of `bytes` at `i`, bytes past the end as zero. */
function littleWord(bytes: Uint8Array, i: number): number {
  return (bytes[i] ?? 0) | ((bytes[i + 1] ?? 0) << 8) | ((bytes[i + 2] ?? 0) << 16) | ((bytes[i + 3] ?? 0) << 24);
}

export const jenkinsLookup3Entry: BytesCodecImplementation = {
  name: NAME,
  kind: 'bytes_to_bytes',
  capabilities: { decodeInto: false, boundedDecode: true, partialDecode: false, fixedEncodedSize: true },
  zarrV3: (configuration) => {
    checkKeys(NAME, configuration, ['initval', 'prefix']);
    const initval = readInt(NAME, configuration, 'initval', 0, 0xffffffff, 0);
    const prefix = readPrefix(configuration?.prefix);
    const hash = prefix ? (d: Uint8Array) => jenkinsLookup3(concat(prefix, d), initval) : (d: Uint8Array) => jenkinsLookup3(d, initval);
    return checksumCodec(NAME, hash, 'end', { name: NAME, configuration: { initval, prefix: prefix ? [...prefix] : null } });
  },
};

function readPrefix(value: unknown): Uint8Array | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value) || !value.every((b) => Number.isInteger(b) && b >= 0 && b <= 255)) {
    throw invalidConfig(NAME, `"prefix" must be null or a list of byte values, got ${shown(value)}`);
  }
  return Uint8Array.from(value as number[]);
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}
