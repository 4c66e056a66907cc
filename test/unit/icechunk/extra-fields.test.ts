// The schema's `extra` fields (reserved for future extensions) survive decode -> encode byte for
// byte, at the slot the schema declares, in every table that has one: Repo, Snapshot,
// NodeSnapshot, ManifestFileInfoV2, Manifest, ArrayManifest, ChunkRef and TransactionLog.
// The slots are read here with the plain flatbuffers ByteBuffer, not through Floe's reader.
import { ByteBuffer } from 'flatbuffers';
import { describe, expect, it } from 'vitest';
import { decodeFile } from '../../../src/format/icechunk/framing.ts';
import { asChunkId, asManifestId, asNodeId, asSnapshotId } from '../../../src/format/icechunk/ids.ts';
import { chunkRefCount, decodeManifest, findChunkRef, type Manifest } from '../../../src/format/icechunk/manifest.ts';
import { encodeManifest } from '../../../src/format/icechunk/manifest-encode.ts';
import { decodeRepoInfo, encodeRepoInfo, type RepoInfo } from '../../../src/format/icechunk/repo-info.ts';
import { decodeSnapshot, encodeSnapshot, type Snapshot } from '../../../src/format/icechunk/snapshot.ts';
import { decodeTransactionLog, encodeTransactionLog, type TransactionLog } from '../../../src/format/icechunk/transaction-log.ts';

const bytes = (n: number, seed: number) => Uint8Array.from({ length: n }, (_, i) => (seed * 31 + i * 7) & 0xff);
const snapId = asSnapshotId(bytes(12, 1));
const nodeId = asNodeId(bytes(8, 2));
const EXTRA = { repo: bytes(5, 3), manifest: bytes(3, 4), array: bytes(9, 5), native: bytes(2, 6), inline: bytes(1, 7), virtual: bytes(4, 8), log: bytes(6, 9), file: bytes(7, 10) };

/** The `[uint8]` at `slot` of the table at `table` (ByteBuffer position), or undefined. */
function vectorAt(bb: ByteBuffer, table: number, slot: number): Uint8Array | undefined {
  const field = bb.__offset(table, 4 + slot * 2);
  if (field === 0) return undefined;
  const start = bb.__vector(table + field);
  return bb.bytes().slice(start, start + bb.__vector_len(table + field));
}
/** Tables of the offset vector at `slot`. */
function tablesAt(bb: ByteBuffer, table: number, slot: number): number[] {
  const field = bb.__offset(table, 4 + slot * 2);
  const start = bb.__vector(table + field);
  return Array.from({ length: bb.__vector_len(table + field) }, (_, i) => bb.__indirect(start + i * 4));
}
function payloadRoot(file: Uint8Array, type: Parameters<typeof decodeFile>[1]): [ByteBuffer, number] {
  const bb = new ByteBuffer(decodeFile(file, type).payload);
  return [bb, bb.readInt32(bb.position()) + bb.position()];
}
const payload = (file: Uint8Array, type: Parameters<typeof decodeFile>[1]) => decodeFile(file, type).payload;

describe('extra fields', () => {
  it('Repo.extra (slot 12) survives a rewrite of the repo file', () => {
    const info: RepoInfo = {
      specVersion: 2, repoSpecVersion: 2, tags: [], branches: [{ name: 'main', snapshotId: snapId }], deletedTags: [],
      snapshots: [{ id: snapId, parentId: null, flushedAt: 1, message: 'init', metadata: [] }],
      status: { availability: 'online', setAt: 1, limitedAvailabilityReason: null }, metadata: [],
      latestUpdates: [{ update: { kind: 'repoInitialized' }, updatedAt: 1, backupPath: null }], repoBeforeUpdates: null,
      config: null, enabledFeatureFlags: null, disabledFeatureFlags: null, extra: EXTRA.repo,
    };
    const file = encodeRepoInfo(info);
    const [bb, root] = payloadRoot(file, 'repoInfo');
    expect(vectorAt(bb, root, 12)).toEqual(EXTRA.repo);
    const decoded = decodeRepoInfo(file);
    expect(decoded.extra).toEqual(EXTRA.repo);
    // What a commit does to the file: a new ops-log entry, everything else carried over.
    const next = encodeRepoInfo({ ...decoded, latestUpdates: [{ update: { kind: 'gcRan' }, updatedAt: 2, backupPath: null }, ...decoded.latestUpdates] });
    expect(decodeRepoInfo(next).extra).toEqual(EXTRA.repo);
    expect(payload(encodeRepoInfo(decoded), 'repoInfo')).toEqual(payload(file, 'repoInfo'));
    const { extra: _, ...without } = info;
    expect(decodeRepoInfo(encodeRepoInfo(without))).not.toHaveProperty('extra');
  });

  it('Manifest (slot 4), ArrayManifest (slot 2) and ChunkRef (slot 9) extras, on every ref kind', () => {
    const manifest: Manifest = {
      specVersion: 2, id: asManifestId(bytes(12, 11)), extra: EXTRA.manifest,
      arrays: [{
        nodeId, extra: EXTRA.array,
        refs: [
          { kind: 'native', index: [0], chunkId: asChunkId(bytes(12, 12)), offset: 0, length: 10, extra: EXTRA.native },
          { kind: 'native', index: [1], chunkId: asChunkId(bytes(12, 13)), offset: 5, length: 10 },
          { kind: 'inline', index: [2], data: bytes(3, 14), extra: EXTRA.inline },
          { kind: 'virtual', index: [3], location: 's3://b/k', offset: 1, length: 2, checksum: { etag: 'e' }, extra: EXTRA.virtual },
          { kind: 'native', index: [4], chunkId: asChunkId(bytes(12, 15)), offset: 0, length: 1, extra: new Uint8Array(0) },
        ],
      }],
    };
    const file = encodeManifest(manifest);
    const [bb, root] = payloadRoot(file, 'manifest');
    expect(vectorAt(bb, root, 4)).toEqual(EXTRA.manifest);
    const [array] = tablesAt(bb, root, 1);
    expect(vectorAt(bb, array!, 2)).toEqual(EXTRA.array);
    expect(tablesAt(bb, array!, 1).map((ref) => vectorAt(bb, ref, 9))).toEqual([EXTRA.native, undefined, EXTRA.inline, EXTRA.virtual, new Uint8Array(0)]);

    const decoded = decodeManifest(file);
    const a = decoded.arrays[0]!;
    expect(decoded.extra).toEqual(EXTRA.manifest);
    expect(a.extra).toEqual(EXTRA.array);
    // Before the ref objects exist: lookups over the columns still see the extras.
    expect(chunkRefCount(a)).toBe(5);
    expect(findChunkRef(a, [0])).toEqual(manifest.arrays[0]!.refs[0]);
    expect(findChunkRef(a, [1])).not.toHaveProperty('extra');
    expect(findChunkRef(a, [4])!.extra).toEqual(new Uint8Array(0));
    expect(payload(encodeManifest(decodeManifest(file)), 'manifest')).toEqual(payload(file, 'manifest'));
    expect(decoded).toEqual(manifest);
  });

  it('TransactionLog.extra (slot 9), in spec 1 and 2 files', () => {
    for (const specVersion of [1, 2] as const) {
      const log: TransactionLog = {
        specVersion, id: snapId, newGroups: [nodeId], newArrays: [], deletedGroups: [], deletedArrays: [], updatedArrays: [], updatedGroups: [],
        updatedChunks: [{ nodeId, chunks: [[0, 1]] }], movedNodes: [], extra: EXTRA.log,
      };
      const file = encodeTransactionLog(log);
      const [bb, root] = payloadRoot(file, 'transactionLog');
      expect(vectorAt(bb, root, 9)).toEqual(EXTRA.log);
      expect(decodeTransactionLog(file)).toEqual(log);
      expect(payload(encodeTransactionLog(decodeTransactionLog(file)), 'transactionLog')).toEqual(payload(file, 'transactionLog'));
    }
  });

  it('Snapshot (slot 8), NodeSnapshot (slot 5) and ManifestFileInfoV2 (slot 3) extras', () => {
    const snapshot: Snapshot = {
      specVersion: 2, id: snapId, parentId: null, flushedAt: 3, message: 'm', metadata: [],
      manifestFiles: [
        { id: asManifestId(bytes(12, 20)), sizeBytes: 100, numChunkRefs: 3, extra: EXTRA.file },
        { id: asManifestId(bytes(12, 21)), sizeBytes: 200, numChunkRefs: 4 },
      ],
      nodes: [{ id: nodeId, path: '/', userData: bytes(4, 22), nodeData: { kind: 'group' }, extra: bytes(2, 23) }],
      extra: bytes(3, 24),
    };
    const file = encodeSnapshot(snapshot);
    const [bb, root] = payloadRoot(file, 'snapshot');
    expect(vectorAt(bb, root, 8)).toEqual(snapshot.extra);
    expect(vectorAt(bb, tablesAt(bb, root, 2)[0]!, 5)).toEqual(snapshot.nodes[0]!.extra);
    const files = tablesAt(bb, root, 7);
    const withExtra = files.find((t) => vectorAt(bb, t, 3) !== undefined)!;
    expect(vectorAt(bb, withExtra, 3)).toEqual(EXTRA.file);
    expect(files.filter((t) => vectorAt(bb, t, 3) !== undefined)).toHaveLength(1);
    expect(decodeSnapshot(file)).toEqual(snapshot);
    expect(payload(encodeSnapshot(decodeSnapshot(file)), 'snapshot')).toEqual(payload(file, 'snapshot'));
  });
});
