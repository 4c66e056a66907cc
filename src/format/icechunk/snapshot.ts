// Snapshot files. Spec-1 and spec-2 shapes are normalised here into one model: `shape` (array
// length + chunk length) becomes `shape_v2` (array length + number of chunks), and
// `manifest_files` / `manifest_files_v2` become one list. `specVersion` records which shape
// the file had and which shape `encodeSnapshot` writes; nothing above this layer needs it.
import type { Builder, Offset } from 'flatbuffers';
import { floeError } from '../../errors.ts';
import { decodeGuarded, FlatbufferReader } from './flatbuffer-reader.ts';
import {
  addIdField,
  createOffsetVector,
  createStructVector,
  finishPayload,
  newBuilder,
  pushBytes,
  sharedString,
} from './flatbuffer-writer.ts';
import { decodeFile, encodeFile, type EncodeFileOptions } from './framing.ts';
import type { SpecVersion } from './header.ts';
import {
  asManifestId,
  asNodeId,
  asSnapshotId,
  compareIds,
  type ManifestId,
  type NodeId,
  type SnapshotId,
} from './ids.ts';
import { decodeMetadataItems, encodeMetadataItems } from './metadata-items.ts';
import type { MetadataItem } from './metadata-value.ts';
import { checkNodePath, compareNodePaths } from './node-path.ts';

export interface DimensionShape {
  arrayLength: number;
  numChunks: number;
}

/** One chunk-index range per dimension: `from` inclusive, `to` exclusive. */
export interface ChunkIndexRange {
  from: number;
  to: number;
}

export interface ManifestRef {
  objectId: ManifestId;
  extents: ChunkIndexRange[];
}

export interface ManifestFileInfo {
  id: ManifestId;
  sizeBytes: number;
  numChunkRefs: number;
  /**
   * ManifestFileInfoV2's `extra` bytes (future extensions), kept byte-exact; absent when the file
   * has none. Spec-1 files store a struct without it, so writing spec 1 drops it.
   */
  extra?: Uint8Array;
}

export type NodeData =
  | { kind: 'group' }
  | {
      kind: 'array';
      shape: DimensionShape[];
      /** One entry per dimension (null = unnamed), or null when the array has none. */
      dimensionNames: (string | null)[] | null;
      manifests: ManifestRef[];
    };

export interface NodeSnapshot {
  id: NodeId;
  path: string;
  /** The node's zarr.json bytes, exactly as stored. */
  userData: Uint8Array;
  nodeData: NodeData;
  extra: Uint8Array | null;
}

export interface Snapshot {
  specVersion: SpecVersion;
  id: SnapshotId;
  /** Only spec-1 files store the parent; spec 2 keeps it in the repo info file. */
  parentId: SnapshotId | null;
  /** Microseconds since the Unix epoch. */
  flushedAt: number;
  message: string;
  metadata: MetadataItem[];
  manifestFiles: ManifestFileInfo[];
  /** Sorted by path, component-wise. */
  nodes: NodeSnapshot[];
  extra: Uint8Array | null;
}

// Slots, in schema declaration order (a union takes two: type, then value).
const S = { id: 0, parentId: 1, nodes: 2, flushedAt: 3, message: 4, metadata: 5, manifestFiles: 6, manifestFilesV2: 7, extra: 8 };
const N = { id: 0, path: 1, userData: 2, nodeDataType: 3, nodeData: 4, extra: 5 };
const A = { shape: 0, dimensionNames: 1, manifests: 2, shapeV2: 3 };
const NODE_DATA_ARRAY = 1;
const NODE_DATA_GROUP = 2;

export function decodeSnapshot(bytes: Uint8Array, where?: string): Snapshot {
  const { header, payload } = decodeFile(bytes, 'snapshot', where);
  return decodeGuarded('snapshot', where, () => readSnapshot(new FlatbufferReader(payload, where), header.specVersion));
}

function readSnapshot(r: FlatbufferReader, specVersion: SpecVersion): Snapshot {
  const root = r.root();
  const parent = r.structBytes(root, S.parentId, 12);
  // The spec: "In V2 snapshots: MUST be empty". Such a file is not one Floe could write back.
  if (parent && specVersion === 2) r.corrupt('a spec-2 snapshot has a parent_id (spec 2 keeps parents in the repo info file)');
  // struct ManifestFileInfo: id at 0 (12 bytes), size_bytes at 16 (8-aligned), num_chunk_refs
  // at 24, padded to 32.
  const v1Files = r.requiredVector(root, S.manifestFiles, 32, 'manifest_files');
  const manifestFiles: ManifestFileInfo[] = [];
  for (let i = 0; i < v1Files.length; i++) {
    const at = v1Files.start + i * 32;
    manifestFiles.push({ id: asManifestId(r.copy(at, 12)), sizeBytes: r.safeU64At(at + 16), numChunkRefs: r.bb.readUint32(at + 24) });
  }
  for (const t of r.tables(root, S.manifestFilesV2)) {
    const extra = r.byteVector(t, 3);
    manifestFiles.push({
      id: asManifestId(r.requiredStruct(t, 0, 12, 'ManifestFileInfoV2.id')),
      sizeBytes: r.u64n(t, 1),
      numChunkRefs: r.u32(t, 2),
      ...(extra !== undefined && { extra: extra.slice() }),
    });
  }
  return {
    specVersion,
    id: asSnapshotId(r.requiredStruct(root, S.id, 12, 'Snapshot.id')),
    parentId: parent ? asSnapshotId(parent) : null,
    flushedAt: r.u64n(root, S.flushedAt),
    message: r.requiredString(root, S.message, 'Snapshot.message'),
    metadata: decodeMetadataItems(r, r.requiredVector(root, S.metadata, 4, 'metadata') && r.tables(root, S.metadata), specVersion),
    manifestFiles,
    nodes: (r.requiredVector(root, S.nodes, 4, 'nodes') && r.tables(root, S.nodes)).map((t) => readNode(r, t)),
    extra: r.byteVector(root, S.extra)?.slice() ?? null,
  };
}

function readNode(r: FlatbufferReader, t: number): NodeSnapshot {
  const type = r.u8(t, N.nodeDataType);
  const data = r.requiredTable(t, N.nodeData, 'NodeSnapshot.node_data');
  let nodeData: NodeData;
  if (type === NODE_DATA_GROUP) nodeData = { kind: 'group' };
  else if (type === NODE_DATA_ARRAY) nodeData = readArrayData(r, data);
  else return r.corrupt(`unknown node data type ${type}`);
  return {
    id: asNodeId(r.requiredStruct(t, N.id, 8, 'NodeSnapshot.id')),
    path: checkNodePath(r.requiredString(t, N.path, 'NodeSnapshot.path'), r.where),
    userData: (r.byteVector(t, N.userData) ?? r.corrupt('required user_data is missing')).slice(),
    nodeData,
    extra: r.byteVector(t, N.extra)?.slice() ?? null,
  };
}

function readArrayData(r: FlatbufferReader, t: number): NodeData {
  // shape_v2 present means a spec-2 array, even when `shape` is empty (scalars are empty too).
  const v1 = r.requiredVector(t, A.shape, 16, 'ArrayNodeData.shape');
  const v2 = r.vector(t, A.shapeV2, 4);
  const shape: DimensionShape[] = [];
  if (v2) {
    for (const dim of r.tables(t, A.shapeV2)) shape.push({ arrayLength: r.u64n(dim, 0), numChunks: r.u32(dim, 1) });
  } else {
    for (let i = 0; i < v1.length; i++) {
      const arrayLength = r.safeU64At(v1.start + i * 16);
      const chunkLength = r.safeU64At(v1.start + i * 16 + 8);
      if (chunkLength === 0 && arrayLength !== 0) r.corrupt(`dimension ${i} has chunk_length 0 and array_length ${arrayLength}`);
      shape.push({ arrayLength, numChunks: chunkLength === 0 ? 0 : Math.ceil(arrayLength / chunkLength) });
    }
  }
  const names = r.vector(t, A.dimensionNames, 4) ? r.tables(t, A.dimensionNames).map((n) => r.string(n, 0) ?? null) : null;
  r.requiredVector(t, A.manifests, 4, 'ArrayNodeData.manifests');
  const manifests = r.tables(t, A.manifests).map((m): ManifestRef => {
    const ext = r.requiredVector(m, 1, 8, 'ManifestRef.extents');
    const extents: ChunkIndexRange[] = [];
    for (let i = 0; i < ext.length; i++) {
      extents.push({ from: r.bb.readUint32(ext.start + i * 8), to: r.bb.readUint32(ext.start + i * 8 + 4) });
    }
    return { objectId: asManifestId(r.requiredStruct(m, 0, 12, 'ManifestRef.object_id')), extents };
  });
  return { kind: 'array', shape, dimensionNames: names, manifests };
}

/** Sorts what the schema says must be sorted, then writes the file. */
export function encodeSnapshot(snapshot: Snapshot, options: EncodeFileOptions = {}): Uint8Array {
  return encodeFile('snapshot', snapshot.specVersion, encodeSnapshotPayload(snapshot), options);
}

export function encodeSnapshotPayload(snapshot: Snapshot): Uint8Array {
  const spec = snapshot.specVersion;
  if (spec === 2 && snapshot.parentId) {
    throw floeError('INVALID_ARGUMENT', 'spec-2 snapshots keep their parent in the repo info file; parentId must be null');
  }
  const b = newBuilder(4096);
  const files = [...snapshot.manifestFiles].sort((x, y) => compareIds(x.id, y.id));
  const nodes = [...snapshot.nodes].sort((x, y) => compareNodePaths(x.path, y.path));
  // Children are created in the order the reference creates them, so payloads match byte for
  // byte: extra, manifest_files_v2, manifest_files, metadata, message, nodes.
  const extra = snapshot.extra ? b.createByteVector(snapshot.extra) : undefined;
  let filesV2: Offset | undefined;
  if (spec === 2) {
    const tables = files.map((f) => {
      const fileExtra = f.extra ? b.createByteVector(f.extra) : undefined;
      b.startObject(4);
      b.addFieldInt64(1, BigInt(f.sizeBytes), 0n);
      if (fileExtra !== undefined) b.addFieldOffset(3, fileExtra, 0);
      b.addFieldInt32(2, f.numChunkRefs, 0);
      addIdField(b, 0, f.id);
      return b.endObject();
    });
    filesV2 = createOffsetVector(b, tables);
  }
  const filesV1 = createStructVector(b, spec === 1 ? files : [], 32, 8, (b, f) => {
    b.prep(8, 32);
    b.pad(4);
    b.writeInt32(f.numChunkRefs);
    b.writeInt64(BigInt(f.sizeBytes));
    b.pad(4);
    pushBytes(b, f.id);
  });
  const metadata = encodeMetadataItems(b, snapshot.metadata, spec);
  const message = b.createString(snapshot.message);
  const nodeOffsets = nodes.map((n) => writeNode(b, n, spec));
  const nodesVec = createOffsetVector(b, nodeOffsets);

  b.startObject(9);
  b.addFieldInt64(S.flushedAt, BigInt(snapshot.flushedAt), 0n);
  if (extra !== undefined) b.addFieldOffset(S.extra, extra, 0);
  if (filesV2 !== undefined) b.addFieldOffset(S.manifestFilesV2, filesV2, 0);
  b.addFieldOffset(S.manifestFiles, filesV1, 0);
  b.addFieldOffset(S.metadata, metadata, 0);
  b.addFieldOffset(S.message, message, 0);
  b.addFieldOffset(S.nodes, nodesVec, 0);
  if (snapshot.parentId) addIdField(b, S.parentId, snapshot.parentId);
  addIdField(b, S.id, snapshot.id);
  return finishPayload(b, b.endObject());
}

function writeNode(b: Builder, node: NodeSnapshot, spec: SpecVersion): Offset {
  const path = b.createString(node.path);
  const data = node.nodeData.kind === 'group' ? emptyTable(b) : writeArrayData(b, node.nodeData, spec);
  const userData = b.createByteVector(node.userData);
  const extra = node.extra ? b.createByteVector(node.extra) : undefined;
  b.startObject(6);
  if (extra !== undefined) b.addFieldOffset(N.extra, extra, 0);
  b.addFieldOffset(N.nodeData, data, 0);
  b.addFieldOffset(N.userData, userData, 0);
  b.addFieldOffset(N.path, path, 0);
  addIdField(b, N.id, node.id);
  b.addFieldInt8(N.nodeDataType, node.nodeData.kind === 'group' ? NODE_DATA_GROUP : NODE_DATA_ARRAY, 0);
  return b.endObject();
}

function emptyTable(b: Builder): Offset {
  b.startObject(0);
  return b.endObject();
}

function writeArrayData(b: Builder, data: Extract<NodeData, { kind: 'array' }>, spec: SpecVersion): Offset {
  const manifests = data.manifests.map((m) => {
    const extents = createStructVector(b, m.extents, 8, 4, (b, e) => {
      b.prep(4, 8);
      b.writeInt32(e.to | 0);
      b.writeInt32(e.from | 0);
    });
    b.startObject(2);
    b.addFieldOffset(1, extents, 0);
    addIdField(b, 0, m.objectId);
    return b.endObject();
  });
  const manifestsVec = createOffsetVector(b, manifests);
  const names = data.dimensionNames
    ? createOffsetVector(
        b,
        data.dimensionNames.map((name) => {
          // Shared strings: the reference writes each distinct dimension name once.
          const s = name === null ? undefined : sharedString(b, name);
          b.startObject(1);
          if (s !== undefined) b.addFieldOffset(0, s, 0);
          return b.endObject();
        }),
      )
    : undefined;
  let shapeV1: Offset;
  let shapeV2: Offset | undefined;
  if (spec === 1) {
    shapeV1 = writeShapeV1(b, data.shape);
  } else {
    const dims = data.shape.map((d) => {
      b.startObject(2);
      b.addFieldInt64(0, BigInt(d.arrayLength), 0n);
      b.addFieldInt32(1, d.numChunks, 0);
      return b.endObject();
    });
    shapeV1 = writeShapeV1(b, []);
    shapeV2 = createOffsetVector(b, dims);
  }
  b.startObject(4);
  if (shapeV2 !== undefined) b.addFieldOffset(A.shapeV2, shapeV2, 0);
  b.addFieldOffset(A.manifests, manifestsVec, 0);
  if (names !== undefined) b.addFieldOffset(A.dimensionNames, names, 0);
  b.addFieldOffset(A.shape, shapeV1, 0);
  return b.endObject();
}

// Spec 1 stored a chunk length; spec 2 keeps the number of chunks. Going back, the chunk length
// is recomputed as ceil(length / chunks) as the reference does: only an estimate, since the
// authoritative chunk shape is in user_data.
function writeShapeV1(b: Builder, shape: readonly DimensionShape[]): Offset {
  return createStructVector(b, shape, 16, 8, (b, d) => {
    b.prep(8, 16);
    const chunkLength = d.numChunks === 0 ? 0 : Math.ceil(d.arrayLength / d.numChunks);
    b.writeInt64(BigInt(chunkLength));
    b.writeInt64(BigInt(d.arrayLength));
  });
}
