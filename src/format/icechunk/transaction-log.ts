// Transaction log files: which nodes and chunks a commit touched, for rebase and diff. Spec-1
// logs have no moved_nodes; they decode to an empty list.
import type { Builder, Offset } from 'flatbuffers';
import { decodeGuarded, FlatbufferReader } from './flatbuffer-reader.ts';
import {
  addIdField,
  createOffsetVector,
  createStructVector,
  createU32Vector,
  finishPayload,
  newBuilder,
  pushBytes,
} from './flatbuffer-writer.ts';
import { decodeFile, encodeFile, type EncodeFileOptions } from './framing.ts';
import type { SpecVersion } from './header.ts';
import { asNodeId, asSnapshotId, compareIds, type NodeId, type SnapshotId } from './ids.ts';
import { compareChunkIndices } from './manifest.ts';
import { checkNodePath, compareNodePaths } from './node-path.ts';

export interface ArrayUpdatedChunks {
  nodeId: NodeId;
  /** Chunk coordinates, sorted lexicographically. */
  chunks: number[][];
}

export interface MoveOperation {
  from: string;
  to: string;
  nodeId: NodeId;
  nodeType: 'group' | 'array';
}

export interface TransactionLog {
  specVersion: SpecVersion;
  /** The id of the snapshot this log belongs to. */
  id: SnapshotId;
  newGroups: NodeId[];
  newArrays: NodeId[];
  deletedGroups: NodeId[];
  deletedArrays: NodeId[];
  updatedArrays: NodeId[];
  updatedGroups: NodeId[];
  updatedChunks: ArrayUpdatedChunks[];
  /** Sorted by `to`, component-wise. Always empty in spec-1 logs. */
  movedNodes: MoveOperation[];
  /** The schema's `extra` bytes (future extensions), kept byte-exact; absent when the file has none. */
  extra?: Uint8Array;
}

const T = {
  id: 0, newGroups: 1, newArrays: 2, deletedGroups: 3, deletedArrays: 4,
  updatedArrays: 5, updatedGroups: 6, updatedChunks: 7, movedNodes: 8, extra: 9,
};
const NODE_TYPE_GROUP = 0;
const NODE_TYPE_ARRAY = 1;

export function decodeTransactionLog(bytes: Uint8Array, where?: string): TransactionLog {
  const { header, payload } = decodeFile(bytes, 'transactionLog', where);
  return decodeGuarded('transaction log', where, () => readLog(new FlatbufferReader(payload, where), header.specVersion));
}

function readIds(r: FlatbufferReader, table: number, slot: number, name: string): NodeId[] {
  const vec = r.requiredVector(table, slot, 8, name);
  const out: NodeId[] = [];
  for (let i = 0; i < vec.length; i++) out.push(asNodeId(r.copy(vec.start + i * 8, 8)));
  return out;
}

function readLog(r: FlatbufferReader, specVersion: SpecVersion): TransactionLog {
  const root = r.root();
  r.requiredVector(root, T.updatedChunks, 4, 'updated_chunks');
  const updatedChunks = r.tables(root, T.updatedChunks).map((t): ArrayUpdatedChunks => {
    r.requiredVector(t, 1, 4, 'ArrayUpdatedChunks.chunks');
    return {
      nodeId: asNodeId(r.requiredStruct(t, 0, 8, 'ArrayUpdatedChunks.node_id')),
      chunks: r.tables(t, 1).map((c) => r.u32Vector(c, 0) ?? r.corrupt('required ChunkIndices.coords is missing')),
    };
  });
  const movedNodes = r.tables(root, T.movedNodes).map((t): MoveOperation => {
    const type = r.u8(t, 3);
    if (type !== NODE_TYPE_GROUP && type !== NODE_TYPE_ARRAY) r.corrupt(`unknown node type ${type} in a move`);
    return {
      from: checkNodePath(r.requiredString(t, 0, 'MoveOperation.from'), r.where),
      to: checkNodePath(r.requiredString(t, 1, 'MoveOperation.to'), r.where),
      nodeId: asNodeId(r.requiredStruct(t, 2, 8, 'MoveOperation.node_id')),
      nodeType: type === NODE_TYPE_ARRAY ? 'array' : 'group',
    };
  });
  const extra = r.byteVector(root, T.extra);
  return {
    ...(extra !== undefined && { extra: extra.slice() }),
    specVersion,
    id: asSnapshotId(r.requiredStruct(root, T.id, 12, 'TransactionLog.id')),
    newGroups: readIds(r, root, T.newGroups, 'new_groups'),
    newArrays: readIds(r, root, T.newArrays, 'new_arrays'),
    deletedGroups: readIds(r, root, T.deletedGroups, 'deleted_groups'),
    deletedArrays: readIds(r, root, T.deletedArrays, 'deleted_arrays'),
    updatedArrays: readIds(r, root, T.updatedArrays, 'updated_arrays'),
    updatedGroups: readIds(r, root, T.updatedGroups, 'updated_groups'),
    updatedChunks,
    movedNodes,
  };
}

export function encodeTransactionLog(log: TransactionLog, options: EncodeFileOptions = {}): Uint8Array {
  return encodeFile('transactionLog', log.specVersion, encodeTransactionLogPayload(log), options);
}

function idVector(b: Builder, ids: readonly NodeId[]): Offset {
  const sorted = [...ids].sort(compareIds);
  return createStructVector(b, sorted, 8, 1, (b, id) => {
    b.prep(1, 8);
    pushBytes(b, id);
  });
}

function writeUpdatedChunks(b: Builder, updated: readonly ArrayUpdatedChunks[]): Offset {
  const arrays = [...updated].sort((x, y) => compareIds(x.nodeId, y.nodeId));
  return createOffsetVector(
    b,
    arrays.map((a) => {
      const chunks = [...a.chunks].sort(compareChunkIndices).map((coords) => {
        const vec = createU32Vector(b, coords);
        b.startObject(1);
        b.addFieldOffset(0, vec, 0);
        return b.endObject();
      });
      const chunksVec = createOffsetVector(b, chunks);
      b.startObject(2);
      b.addFieldOffset(1, chunksVec, 0);
      addIdField(b, 0, a.nodeId);
      return b.endObject();
    }),
  );
}

export function encodeTransactionLogPayload(log: TransactionLog): Uint8Array {
  const b = newBuilder(1024);
  // Creation order follows the reference writers, so payloads are byte-identical: Icechunk 1
  // wrote the updated chunks first, Icechunk 2 writes the six id lists first.
  let updatedChunks: Offset | undefined;
  if (log.specVersion === 1) updatedChunks = writeUpdatedChunks(b, log.updatedChunks);
  const newGroups = idVector(b, log.newGroups);
  const newArrays = idVector(b, log.newArrays);
  const deletedGroups = idVector(b, log.deletedGroups);
  const deletedArrays = idVector(b, log.deletedArrays);
  const updatedGroups = idVector(b, log.updatedGroups);
  const updatedArrays = idVector(b, log.updatedArrays);
  updatedChunks ??= writeUpdatedChunks(b, log.updatedChunks);
  let moved: Offset | undefined;
  if (log.specVersion === 2) {
    const moves = [...log.movedNodes].sort((x, y) => compareNodePaths(x.to, y.to));
    moved = createOffsetVector(
      b,
      moves.map((m) => {
        const from = b.createString(m.from);
        const to = b.createString(m.to);
        b.startObject(4);
        addIdField(b, 2, m.nodeId);
        b.addFieldOffset(1, to, 0);
        b.addFieldOffset(0, from, 0);
        b.addFieldInt8(3, m.nodeType === 'array' ? NODE_TYPE_ARRAY : NODE_TYPE_GROUP, NODE_TYPE_GROUP);
        return b.endObject();
      }),
    );
  }
  const extra = log.extra ? b.createByteVector(log.extra) : undefined;
  b.startObject(10);
  if (extra !== undefined) b.addFieldOffset(T.extra, extra, 0);
  if (moved !== undefined) b.addFieldOffset(T.movedNodes, moved, 0);
  b.addFieldOffset(T.updatedChunks, updatedChunks, 0);
  b.addFieldOffset(T.updatedGroups, updatedGroups, 0);
  b.addFieldOffset(T.updatedArrays, updatedArrays, 0);
  b.addFieldOffset(T.deletedArrays, deletedArrays, 0);
  b.addFieldOffset(T.deletedGroups, deletedGroups, 0);
  b.addFieldOffset(T.newArrays, newArrays, 0);
  b.addFieldOffset(T.newGroups, newGroups, 0);
  addIdField(b, T.id, log.id);
  return finishPayload(b, b.endObject());
}
