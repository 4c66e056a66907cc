// The MetadataItem table (name + encoded value) shared by snapshots and repo info files.
import type { Builder, Offset } from 'flatbuffers';
import type { FlatbufferReader } from './flatbuffer-reader.ts';
import { createOffsetVector, sharedString } from './flatbuffer-writer.ts';
import type { SpecVersion } from './header.ts';
import {
  decodeMetadataValue,
  encodeMetadataValue,
  sortMetadata,
  type MetadataItem,
} from './metadata-value.ts';

export function decodeMetadataItems(r: FlatbufferReader, tables: number[], spec: SpecVersion): MetadataItem[] {
  return tables.map((t) => {
    const name = r.requiredString(t, 0, 'MetadataItem.name');
    const bytes = r.byteVector(t, 1) ?? r.corrupt(`metadata item '${name}' has no value`);
    return { name, value: decodeMetadataValue(bytes, spec, r.where) };
  });
}

/** Writes the items sorted by name, each value in the encoding of `spec`. */
export function encodeMetadataItems(b: Builder, items: readonly MetadataItem[], spec: SpecVersion): Offset {
  const offsets = sortMetadata(items).map((item) => {
    const name = sharedString(b, item.name);
    const value = b.createByteVector(encodeMetadataValue(item.value, spec));
    b.startObject(2);
    b.addFieldOffset(1, value, 0);
    b.addFieldOffset(0, name, 0);
    return b.endObject();
  });
  return createOffsetVector(b, offsets);
}
