// The manifest payload as the flatbuffers runtime's Builder lays it out: the oracle for
// src/format/icechunk/table-writer.ts, which must write the same bytes faster. Only the Builder
// and the schema's slot numbers here; refs must already be sorted (as the encoder sorts them).
import { Builder, type Offset } from 'flatbuffers';
import type { ChunkRef } from '../../src/format/icechunk/chunk-ref.ts';
import { FILE_IDENTIFIER } from '../../src/format/icechunk/framing.ts';
import { compareIds } from '../../src/format/icechunk/ids.ts';
import type { Manifest } from '../../src/format/icechunk/manifest.ts';

const M = { id: 0, arrays: 1, compressionAlgorithm: 3, extra: 4 };
const AM = { nodeId: 0, refs: 1, extra: 2 };
const R = { index: 0, inline: 1, offset: 2, length: 3, chunkId: 4, location: 5, etag: 6, lastModified: 7, extra: 9 };

function idField(b: Builder, slot: number, id: Uint8Array): void {
  b.prep(1, id.length);
  for (let i = id.length - 1; i >= 0; i--) b.writeInt8(id[i] ?? 0);
  b.addFieldStruct(slot, b.offset(), 0);
}

function offsets(b: Builder, items: Offset[]): Offset {
  b.startVector(4, items.length, 4);
  for (const item of items.toReversed()) b.addOffset(item);
  return b.endVector();
}

function u32s(b: Builder, values: readonly number[]): Offset {
  b.startVector(4, values.length, 4);
  for (const value of values.toReversed()) b.addInt32(value | 0);
  return b.endVector();
}

export function builderManifestPayload(m: Manifest): Uint8Array {
  const b = new Builder(64);
  const arrays = [...m.arrays].sort((x, y) => compareIds(x.nodeId, y.nodeId)).map((array) => {
    const refsVec = offsets(b, array.refs.map((r) => writeRef(b, r)));
    const extra = array.extra ? b.createByteVector(array.extra) : undefined;
    b.startObject(3);
    if (extra !== undefined) b.addFieldOffset(AM.extra, extra, 0);
    b.addFieldOffset(AM.refs, refsVec, 0);
    idField(b, AM.nodeId, array.nodeId);
    return b.endObject();
  });
  const arraysVec = offsets(b, arrays);
  const extra = m.extra ? b.createByteVector(m.extra) : undefined;
  b.startObject(5);
  if (extra !== undefined) b.addFieldOffset(M.extra, extra, 0);
  b.addFieldOffset(M.arrays, arraysVec, 0);
  idField(b, M.id, m.id);
  if (m.specVersion === 2) b.addFieldInt8(M.compressionAlgorithm, 0, 1);
  b.finish(b.endObject(), FILE_IDENTIFIER);
  return b.asUint8Array().slice();
}

function writeRef(b: Builder, r: ChunkRef): Offset {
  const index = u32s(b, r.index);
  const extra = r.extra ? b.createByteVector(r.extra) : 0;
  if (r.kind === 'inline') {
    const data = b.createByteVector(r.data);
    b.startObject(10);
    if (extra) b.addFieldOffset(R.extra, extra, 0);
    b.addFieldOffset(R.inline, data, 0);
    b.addFieldOffset(R.index, index, 0);
    return b.endObject();
  }
  if (r.kind === 'native') {
    b.startObject(10);
    b.addFieldInt64(R.length, BigInt(r.length), 0n);
    b.addFieldInt64(R.offset, BigInt(r.offset), 0n);
    if (extra) b.addFieldOffset(R.extra, extra, 0);
    idField(b, R.chunkId, r.chunkId);
    b.addFieldOffset(R.index, index, 0);
    return b.endObject();
  }
  const location = b.createString(r.location);
  const etag = r.checksum && 'etag' in r.checksum ? b.createString(r.checksum.etag) : undefined;
  const lastModified = r.checksum && 'lastModified' in r.checksum ? r.checksum.lastModified : 0;
  b.startObject(10);
  b.addFieldInt64(R.length, BigInt(r.length), 0n);
  b.addFieldInt64(R.offset, BigInt(r.offset), 0n);
  b.addFieldInt32(R.lastModified, lastModified, 0);
  if (extra) b.addFieldOffset(R.extra, extra, 0);
  if (etag !== undefined) b.addFieldOffset(R.etag, etag, 0);
  b.addFieldOffset(R.location, location, 0);
  b.addFieldOffset(R.index, index, 0);
  return b.endObject();
}
