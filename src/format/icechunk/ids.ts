// Object ids: 12-byte ids for files (snapshots, manifests, chunks, attributes, transaction logs)
// and 8-byte ids for nodes. Each kind is its own branded type so a ManifestId cannot be passed
// where a SnapshotId is expected, even though both are 12 raw bytes underneath.
import { requireString } from '../arguments.ts';
import { floeError } from '../../errors.ts';
import { compareSequences } from '../indexing.ts';
import { randomBytes as hostRandomBytes } from '../../platform/host.ts';

declare const idKind: unique symbol;
type Branded<Kind extends string> = Uint8Array & { readonly [idKind]: Kind };

export type SnapshotId = Branded<'SnapshotId'>;
export type ManifestId = Branded<'ManifestId'>;
export type ChunkId = Branded<'ChunkId'>;
export type AttributesId = Branded<'AttributesId'>;
export type NodeId = Branded<'NodeId'>;

export type Id12 = SnapshotId | ManifestId | ChunkId | AttributesId;
export type AnyId = Id12 | NodeId;

export const ID12_LENGTH = 12;
export const ID8_LENGTH = 8;

/** The id every repository's first snapshot has; it encodes to `1CECHNKREP0F1RSTCMT0`. */
export const INITIAL_SNAPSHOT_ID = asSnapshotId(
  Uint8Array.of(0x0b, 0x1c, 0xc8, 0xd6, 0x78, 0x75, 0x80, 0xf0, 0xe3, 0x3a, 0x65, 0x34),
);

function brand<T extends AnyId>(bytes: Uint8Array, length: number, kind: string): T {
  if (!(bytes instanceof Uint8Array) || bytes.length !== length) {
    throw floeError('INVALID_ARGUMENT', `a ${kind} is ${length} bytes, got ${describe(bytes)}`);
  }
  return bytes as T;
}

function describe(value: unknown): string {
  return value instanceof Uint8Array ? `${value.length} bytes` : typeof value;
}

export function asSnapshotId(bytes: Uint8Array): SnapshotId {
  return brand(bytes, ID12_LENGTH, 'SnapshotId');
}
export function asManifestId(bytes: Uint8Array): ManifestId {
  return brand(bytes, ID12_LENGTH, 'ManifestId');
}
export function asChunkId(bytes: Uint8Array): ChunkId {
  return brand(bytes, ID12_LENGTH, 'ChunkId');
}
export function asAttributesId(bytes: Uint8Array): AttributesId {
  return brand(bytes, ID12_LENGTH, 'AttributesId');
}
export function asNodeId(bytes: Uint8Array): NodeId {
  return brand(bytes, ID8_LENGTH, 'NodeId');
}

function randomBytes(length: number): Uint8Array {
  return hostRandomBytes(length);
}
export const newSnapshotId = (): SnapshotId => asSnapshotId(randomBytes(ID12_LENGTH));
export const newManifestId = (): ManifestId => asManifestId(randomBytes(ID12_LENGTH));
export const newChunkId = (): ChunkId => asChunkId(randomBytes(ID12_LENGTH));
export const newAttributesId = (): AttributesId => asAttributesId(randomBytes(ID12_LENGTH));
export const newNodeId = (): NodeId => asNodeId(randomBytes(ID8_LENGTH));

// Crockford base32: no I, L, O, U. Bits are taken most significant first; the last group is
// padded with zero bits on the right, and no '=' padding is written.
const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const DECODE_TABLE = (() => {
  const table = new Int8Array(128).fill(-1);
  for (let i = 0; i < ALPHABET.length; i++) table[ALPHABET.charCodeAt(i)] = i;
  return table;
})();

export function encodeBase32(bytes: Uint8Array): string {
  let out = '';
  let buffer = 0;
  let bits = 0;
  for (const byte of bytes) {
    buffer = ((buffer << 8) | byte) & 0xffff;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      out += ALPHABET[(buffer >>> bits) & 31];
    }
  }
  if (bits > 0) out += ALPHABET[(buffer << (5 - bits)) & 31];
  return out;
}

/**
 * Decodes uppercase Crockford base32 (the only form Icechunk writes). Returns undefined for text
 * that is not exactly the canonical encoding of `byteLength` bytes, so callers choose the error.
 */
export function decodeBase32(text: string, byteLength: number): Uint8Array | undefined {
  if (text.length !== Math.ceil((byteLength * 8) / 5)) return undefined;
  const out = new Uint8Array(byteLength);
  let buffer = 0;
  let bits = 0;
  let index = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    // A character outside the table (code >= 128) is as invalid as one marked -1 in it.
    const value = DECODE_TABLE[code];
    if (value === undefined || value < 0) return undefined;
    buffer = ((buffer << 5) | value) & 0xffff;
    bits += 5;
    if (bits >= 8) {
      bits -= 8;
      if (index < byteLength) out[index++] = (buffer >>> bits) & 0xff;
    }
  }
  // The padding bits must be zero, or two texts would name the same id.
  if ((buffer & ((1 << bits) - 1)) !== 0) return undefined;
  return out;
}

function parseId<T extends AnyId>(text: string, length: number, kind: string): T {
  requireString(text, `a ${kind}`);
  const bytes = decodeBase32(text, length);
  if (!bytes) {
    throw floeError('INVALID_ARGUMENT', `'${text}' is not a ${kind} (${Math.ceil((length * 8) / 5)} Crockford base32 characters, uppercase)`);
  }
  return bytes as T;
}

export const parseSnapshotId = (text: string): SnapshotId => parseId(text, ID12_LENGTH, 'SnapshotId');
export const parseManifestId = (text: string): ManifestId => parseId(text, ID12_LENGTH, 'ManifestId');
export const parseChunkId = (text: string): ChunkId => parseId(text, ID12_LENGTH, 'ChunkId');
export const parseNodeId = (text: string): NodeId => parseId(text, ID8_LENGTH, 'NodeId');

/** The base32 text of an id, as used in object keys and messages. */
export function idToString(id: AnyId): string {
  return encodeBase32(id);
}

/** Raw byte order: the order the spec asks for every sorted list of ids. */
export function compareIds(a: Uint8Array, b: Uint8Array): number {
  return compareSequences(a, b);
}

export function idsEqual(a: Uint8Array, b: Uint8Array): boolean {
  return compareIds(a, b) === 0;
}
