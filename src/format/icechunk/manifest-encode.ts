// Writing manifests, apart from reading them (manifest.ts): only commits and maintenance write
// them, so this module and its table writer load with the first manifest written, not with
// `import 'floe'`.
import { floeError } from '../../errors.ts';
import { compareIndexLists } from '../indexing.ts';
import type { ChunkRef } from './chunk-ref.ts';
import { encodeFile, type EncodeFileOptions } from './framing.ts';
import { compareIds } from './ids.ts';
import { AM, compareChunkIndices, COMPRESSION_NONE, M, R, type ArrayManifest, type Manifest } from './manifest.ts';
import { TableWriter, type TableOffset } from './table-writer.ts';

/**
 * zstd level for manifest files. The reference uses 3 for every metadata file; on manifests of
 * native refs (random 12-byte chunk ids between small integers) level 2 compresses ~5% smaller
 * and no slower (bench/icechunk-format.ts: 1M refs 19.5 vs 20.5 B/ref), so Floe's manifests are
 * no bigger than the reference's for the same refs. Only the compressed bytes change: the
 * flatbuffers payload stays byte-identical, and readers do not depend on the level.
 */
export const MANIFEST_ZSTD_LEVEL = 2;

export function encodeManifest(manifest: Manifest, options: EncodeFileOptions = {}): Uint8Array {
  return encodeFile('manifest', manifest.specVersion, encodeManifestPayload(manifest), { zstdLevel: MANIFEST_ZSTD_LEVEL, ...options });
}

export function encodeManifestPayload(manifest: Manifest): Uint8Array {
  const payload = tryEncodePayload(manifest) ?? tryEncodePayload(withSortedRefs(manifest));
  // Sorted refs are never out of order: a comparison of numbers is a total order.
  if (payload === undefined) throw floeError('INVALID_ARGUMENT', 'the chunk refs of a manifest could not be sorted by index; pass integer indices');
  return payload;
}

/**
 * The payload, or undefined if an array's refs are not sorted by index. Refs are written in
 * order while their order is checked, in one pass over them rather than two: a commit's one
 * encode of a 1M-ref manifest runs mostly before the optimising compiler takes over, and there a
 * pass over every ref costs ~0.2 µs per ref.
 */
function tryEncodePayload(manifest: Manifest): Uint8Array | undefined {
  const refCount = manifest.arrays.reduce((n, a) => n + a.refs.length, 0);
  const w = new TableWriter(1024 + refCount * 48);
  const arrays = [...manifest.arrays].sort((x, y) => compareIds(x.nodeId, y.nodeId));
  const arrayOffsets: TableOffset[] = [];
  for (const array of arrays) {
    const refsVec = writeSortedRefs(w, array.refs);
    if (refsVec === undefined) return undefined;
    const extra = array.extra ? w.createByteVector(array.extra) : undefined;
    w.startObject(3);
    if (extra !== undefined) addOffsetField(w, AM.extra, extra);
    addOffsetField(w, AM.refs, refsVec);
    addIdField(w, AM.nodeId, array.nodeId);
    arrayOffsets.push(w.endObject());
  }
  const arraysVec = w.createOffsetVector(arrayOffsets);
  const extra = manifest.extra ? w.createByteVector(manifest.extra) : undefined;
  w.startObject(5);
  if (extra !== undefined) addOffsetField(w, M.extra, extra);
  addOffsetField(w, M.arrays, arraysVec);
  addIdField(w, M.id, manifest.id);
  // The schema default is 1 (zstd dictionary); plain locations must say 0 explicitly. Spec-1
  // manifests predate the field.
  if (manifest.specVersion === 2) {
    w.addInt8(COMPRESSION_NONE);
    w.slot(M.compressionAlgorithm);
  }
  return w.finish(w.endObject());
}

/** The refs' offset vector, or undefined at the first ref out of order. */
function writeSortedRefs(w: TableWriter, refs: readonly ChunkRef[]): TableOffset | undefined {
  // Offsets in an Int32Array: a JS array of 1M numbers is one more large object for the GC.
  const offsets = new Int32Array(refs.length);
  let previous: readonly number[] | undefined;
  // Indexed, not for..of: unoptimised for..of allocates an iterator result per step.
  for (let i = 0; i < refs.length; i++) {
    const ref = refs[i];
    // i < length; only a sparse array can have no element there.
    if (ref === undefined) throw floeError('INVALID_ARGUMENT', `chunk ref ${i} of ${refs.length} is missing`);
    if (previous !== undefined && compareIndexLists(previous, ref.index) > 0) return undefined;
    previous = ref.index;
    offsets[i] = writeRef(w, ref);
  }
  return w.createOffsetVector(offsets);
}

function withSortedRefs(manifest: Manifest): Manifest {
  const arrays = manifest.arrays.map((array): ArrayManifest => {
    const refs = [...array.refs].sort((x, y) => compareChunkIndices(x.index, y.index));
    return array.extra ? { nodeId: array.nodeId, refs, extra: array.extra } : { nodeId: array.nodeId, refs };
  });
  return { ...manifest, arrays };
}

function writeRef(w: TableWriter, ref: ChunkRef): TableOffset {
  const index = w.createU32Vector(ref.index);
  const extra = ref.extra ? w.createByteVector(ref.extra) : 0;
  switch (ref.kind) {
    case 'inline': {
      const data = w.createByteVector(ref.data);
      w.startObject(10);
      if (extra) addOffsetField(w, R.extra, extra);
      addOffsetField(w, R.inline, data);
      addOffsetField(w, R.index, index);
      return w.endObject();
    }
    case 'native': {
      w.startObject(10);
      addU64Field(w, R.length, ref.length);
      addU64Field(w, R.offset, ref.offset);
      if (extra) addOffsetField(w, R.extra, extra);
      addIdField(w, R.chunkId, ref.chunkId);
      addOffsetField(w, R.index, index);
      return w.endObject();
    }
    case 'virtual': {
      const location = w.createString(ref.location);
      const etag = ref.checksum && 'etag' in ref.checksum ? w.createString(ref.checksum.etag) : undefined;
      const lastModified = ref.checksum && 'lastModified' in ref.checksum ? ref.checksum.lastModified : 0;
      w.startObject(10);
      addU64Field(w, R.length, ref.length);
      addU64Field(w, R.offset, ref.offset);
      if (lastModified !== 0) {
        w.addInt32(lastModified);
        w.slot(R.lastModified);
      }
      if (extra) addOffsetField(w, R.extra, extra);
      if (etag !== undefined) addOffsetField(w, R.etag, etag);
      addOffsetField(w, R.location, location);
      addOffsetField(w, R.index, index);
      return w.endObject();
    }
  }
}

// Fields as the runtime's addField* calls write them: absent when 0 (the schema defaults).
function addOffsetField(w: TableWriter, slot: number, target: TableOffset): void {
  if (target === 0) return;
  w.addOffset(target);
  w.slot(slot);
}

function addU64Field(w: TableWriter, slot: number, value: number): void {
  if (value === 0) return;
  w.addUint64(value);
  w.slot(slot);
}

/** An inline id struct (ObjectId12/ObjectId8). */
function addIdField(w: TableWriter, slot: number, id: Uint8Array): void {
  w.addStructBytes(id);
  w.slot(slot);
}
