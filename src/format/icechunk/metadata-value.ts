// Metadata values (snapshot properties, repository metadata) are JSON values on the wire:
// FlexBuffers in spec-2 files, MessagePack in spec-1 files. The model holds the decoded value so
// code above this layer never sees the encoding; the spec byte of each file picks the codec.
import { floeError } from '../../errors.ts';
import { compareSequences } from '../indexing.ts';
import { decodeFlexValue } from './flexbuffers-reader.ts';
import type { FlexValue } from './flexbuffers-types.ts';
import { encodeFlexValue } from './flexbuffers-writer.ts';
import type { SpecVersion } from './header.ts';
import type { MetadataItem, MetadataValue } from './metadata-value-types.ts';
import { decodeMsgpack, encodeMsgpack } from './msgpack.ts';

// The model lives in metadata-value-types.ts (msgpack.ts needs it without this module).
export type { MetadataItem, MetadataValue } from './metadata-value-types.ts';

export function decodeFlexbuffer(bytes: Uint8Array, where?: string): MetadataValue {
  return asMetadataValue(decodeFlexValue(bytes, where), where);
}

/** Metadata is JSON: a blob anywhere in the value is refused. */
function asMetadataValue(value: FlexValue, where: string | undefined): MetadataValue {
  if (value instanceof Uint8Array) throw floeError('UNSUPPORTED', 'FlexBuffers blob values are not JSON metadata', { where });
  if (Array.isArray(value)) for (const item of value) asMetadataValue(item, where);
  else if (value !== null && typeof value === 'object') for (const item of Object.values(value)) asMetadataValue(item, where);
  return value as MetadataValue;
}

/**
 * Encodes as the reference does a serde_json value: map keys pushed in sorted order, so
 * metadata the reference wrote re-encodes byte-identically.
 */
export function encodeFlexbuffer(value: MetadataValue): Uint8Array {
  return encodeFlexValue(value, { sortKeys: true });
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
  return compareSequences(x, y);
}
