// The repo info file (`$ROOT/repo`): refs, the snapshot list with parent links, status,
// metadata, the ops log, configuration and feature flags. On the wire refs and parents are
// indices into the snapshot list; the model uses snapshot ids, and the encoder recomputes the
// indices after sorting, so callers cannot produce a dangling index.
import type { Builder, Offset } from 'flatbuffers';
import { floeError } from '../../errors.ts';
import { decodeGuarded, FlatbufferReader } from './flatbuffer-reader.ts';
import { addIdField, addU64Field, createAsciiString, createOffsetVector, createU16Vector, finishPayload, newBuilder } from './flatbuffer-writer.ts';
import { historyIndex, indexDecodedList, MISSING_PARENT, type HistoryIndex } from './history-index.ts';
import { decodeFile, encodeFile, type EncodeFileOptions } from './framing.ts';
import type { SpecVersion } from './header.ts';
import { asSnapshotId, idToString, type SnapshotId } from './ids.ts';
import { decodeMetadataItems, encodeMetadataItems } from './metadata-items.ts';
import { encodeFlexValue } from './flexbuffers-writer.ts';
import { compareUtf8, decodeFlexbuffer, type MetadataItem, type MetadataValue } from './metadata-value.ts';
import { readStatus, readUpdate, UPDATE_TYPE_CODES, writeStatus, writeUpdate, type RepoStatus, type RepoUpdate } from './repo-updates.ts';

export type { RepoStatus, RepoUpdate } from './repo-updates.ts';

export interface RefEntry {
  name: string;
  snapshotId: SnapshotId;
}

export interface SnapshotInfo {
  id: SnapshotId;
  parentId: SnapshotId | null;
  /** Microseconds since the Unix epoch. */
  flushedAt: number;
  message: string;
  metadata: MetadataItem[];
}

export interface OpsLogEntry {
  update: RepoUpdate;
  /** Microseconds since the Unix epoch. */
  updatedAt: number;
  /** Key under `overwritten/` of the repo file as this update left it (backed up when the next update replaced it). */
  backupPath: string | null;
}

export interface RepoInfo {
  /** The header's spec version (which also decides the metadata encoding). */
  specVersion: SpecVersion;
  /** The `spec_version` field inside the table (the repository's version). */
  repoSpecVersion: number;
  tags: RefEntry[];
  branches: RefEntry[];
  deletedTags: string[];
  /** Treated as immutable: the history index is cached per array (history-index.ts). */
  snapshots: readonly SnapshotInfo[];
  status: RepoStatus;
  metadata: MetadataItem[];
  /** Newest first. */
  latestUpdates: OpsLogEntry[];
  repoBeforeUpdates: string | null;
  /** RepositoryConfig as FlexBuffers bytes; decodeRepoConfig / encodeRepoConfig convert losslessly. */
  config: Uint8Array | null;
  enabledFeatureFlags: number[] | null;
  disabledFeatureFlags: number[] | null;
  /**
   * The schema's `extra` bytes, reserved for future spec extensions: opaque to Floe and kept
   * byte-exact, since this file is rewritten on every commit. Absent when the file has none.
   */
  extra?: Uint8Array;
}

const F = {
  specVersion: 0, tags: 1, branches: 2, deletedTags: 3, snapshots: 4, status: 5, metadata: 6,
  latestUpdates: 7, repoBeforeUpdates: 8, config: 9, enabled: 10, disabled: 11, extra: 12,
};

export function decodeRepoInfo(bytes: Uint8Array, where?: string): RepoInfo {
  const { header, payload } = decodeFile(bytes, 'repoInfo', where);
  return decodeGuarded('repo info', where, () => readRepo(new FlatbufferReader(payload, where), header.specVersion));
}

function readRepo(r: FlatbufferReader, specVersion: SpecVersion): RepoInfo {
  const root = r.root();
  r.requiredVector(root, F.snapshots, 4, 'Repo.snapshots');
  const snapshots = readSnapshots(r, r.tables(root, F.snapshots), specVersion);
  const idAt = (index: number, what: string): SnapshotId =>
    snapshots[index]?.id ?? r.corrupt(`${what} points at snapshot index ${index} of ${snapshots.length}`);
  const refs = (slot: number, name: string): RefEntry[] => {
    r.requiredVector(root, slot, 4, name);
    return r.tables(root, slot).map((t) => {
      const refName = r.requiredString(t, 0, 'Ref.name');
      return { name: refName, snapshotId: idAt(r.u32(t, 1), `ref '${refName}'`) };
    });
  };
  r.requiredVector(root, F.latestUpdates, 4, 'Repo.latest_updates');
  const latestUpdates = r.tables(root, F.latestUpdates).map((t): OpsLogEntry => ({
    update: readUpdate(r, r.u8(t, 0), r.requiredTable(t, 1, 'Update.update_type')),
    updatedAt: r.u64n(t, 2),
    backupPath: r.string(t, 3) ?? null,
  }));
  const extra = r.byteVector(root, F.extra);
  return {
    ...(extra !== undefined && { extra: extra.slice() }),
    specVersion,
    repoSpecVersion: r.u8(root, F.specVersion),
    tags: refs(F.tags, 'Repo.tags'),
    branches: refs(F.branches, 'Repo.branches'),
    deletedTags: r.strings(root, F.deletedTags) ?? r.corrupt('required vector Repo.deleted_tags is missing'),
    snapshots,
    status: readStatus(r, r.requiredTable(root, F.status, 'Repo.status')),
    metadata: decodeMetadataItems(r, r.tables(root, F.metadata), specVersion),
    latestUpdates,
    repoBeforeUpdates: r.string(root, F.repoBeforeUpdates) ?? null,
    config: r.byteVector(root, F.config)?.slice() ?? null,
    enabledFeatureFlags: r.u16Vector(root, F.enabled) ?? null,
    disabledFeatureFlags: r.u16Vector(root, F.disabled) ?? null,
  };
}

/**
 * The snapshot list, each parent resolved from its position; the positions themselves go to the
 * history index, which then needs no search to link parents.
 */
function readSnapshots(r: FlatbufferReader, tables: readonly number[], specVersion: SpecVersion): SnapshotInfo[] {
  const rows = tables.map((table) => ({ table, id: asSnapshotId(r.requiredStruct(table, 0, 12, 'SnapshotInfo.id')) }));
  const parentIndices = new Int32Array(rows.length);
  const snapshots = rows.map(({ table, id }, i): SnapshotInfo => {
    const parent = r.i32(table, 1);
    parentIndices[i] = parent;
    return {
      id,
      parentId: parent === -1 ? null : (rows[parent]?.id ?? r.corrupt(`the parent of ${idToString(id)} points at snapshot index ${parent} of ${rows.length}`)),
      flushedAt: r.u64n(table, 2),
      message: r.requiredString(table, 3, 'SnapshotInfo.message'),
      metadata: decodeMetadataItems(r, r.tables(table, 4), specVersion),
    };
  });
  indexDecodedList(snapshots, parentIndices);
  return snapshots;
}

/**
 * zstd level of the repo info file. Every commit rewrites the whole file (~60 payload bytes per
 * snapshot, mostly random ids): level 1 compresses a 10,000-snapshot payload in ~1.2 ms of CPU
 * against ~1.8 ms at level 3, for a file 2% larger (30.8 vs 30.2 bytes per snapshot). Readers do
 * not depend on the level; the payload bytes are unchanged.
 */
export const REPO_INFO_ZSTD_LEVEL = 1;

export function encodeRepoInfo(info: RepoInfo, options: EncodeFileOptions = {}): Uint8Array {
  return encodeFile('repoInfo', info.specVersion, encodeRepoInfoPayload(info), { zstdLevel: REPO_INFO_ZSTD_LEVEL, ...options });
}

const byName = (a: RefEntry, b: RefEntry) => compareUtf8(a.name, b.name);
const ascending = (a: number, b: number) => a - b;

export function encodeRepoInfoPayload(info: RepoInfo): Uint8Array {
  // The index holds the id order and every parent's position in it: no sort, no id map here.
  const index = historyIndex(info.snapshots);
  const b = newBuilder(4096 + index.size * BYTES_PER_SNAPSHOT);
  const indexFor = (id: SnapshotId, what: string): number => {
    const position = index.positionOf(id);
    if (position < 0) throw notListed(what, id);
    return position;
  };
  // Children in the reference's creation order: tags, branches, deleted tags, snapshots,
  // status, metadata, feature flags, ops log, repo_before_updates, config.
  const writeRefs = (refs: readonly RefEntry[], kind: string) =>
    createOffsetVector(
      b,
      [...refs].sort(byName).map((ref) => {
        const name = b.createString(ref.name);
        b.startObject(2);
        b.addFieldInt32(1, indexFor(ref.snapshotId, `${kind} '${ref.name}'`), 0);
        b.addFieldOffset(0, name, 0);
        return b.endObject();
      }),
    );
  const tags = writeRefs(info.tags, 'tag');
  const branches = writeRefs(info.branches, 'branch');
  const deletedTags = createOffsetVector(b, [...info.deletedTags].sort(compareUtf8).map((name) => b.createString(name)));
  const snapshotsVec = createOffsetVector(b, index.sorted.map((s, position) => writeSnapshotInfo(b, s, info.specVersion, parentIndex(index, position))));
  const status = writeStatus(b, info.status);
  const metadata = encodeMetadataItems(b, info.metadata, info.specVersion);
  const enabled = info.enabledFeatureFlags ? createU16Vector(b, [...info.enabledFeatureFlags].sort(ascending)) : undefined;
  const disabled = info.disabledFeatureFlags ? createU16Vector(b, [...info.disabledFeatureFlags].sort(ascending)) : undefined;
  const updates = createOffsetVector(b, info.latestUpdates.map((entry) => writeEntry(b, entry)));
  const before = info.repoBeforeUpdates === null ? undefined : b.createString(info.repoBeforeUpdates);
  const config = info.config ? b.createByteVector(info.config) : undefined;
  const extra = info.extra ? b.createByteVector(info.extra) : undefined;

  b.startObject(13);
  if (extra !== undefined) b.addFieldOffset(F.extra, extra, 0);
  if (disabled !== undefined) b.addFieldOffset(F.disabled, disabled, 0);
  if (enabled !== undefined) b.addFieldOffset(F.enabled, enabled, 0);
  if (config !== undefined) b.addFieldOffset(F.config, config, 0);
  if (before !== undefined) b.addFieldOffset(F.repoBeforeUpdates, before, 0);
  b.addFieldOffset(F.latestUpdates, updates, 0);
  b.addFieldOffset(F.metadata, metadata, 0);
  b.addFieldOffset(F.status, status, 0);
  b.addFieldOffset(F.snapshots, snapshotsVec, 0);
  b.addFieldOffset(F.deletedTags, deletedTags, 0);
  b.addFieldOffset(F.branches, branches, 0);
  b.addFieldOffset(F.tags, tags, 0);
  b.addFieldInt8(F.specVersion, info.repoSpecVersion, 0);
  return finishPayload(b, b.endObject());
}

/** What one snapshot takes in the payload, about: sizes the builder so it need not grow. */
const BYTES_PER_SNAPSHOT = 80;

function notListed(what: string, id: SnapshotId): Error {
  return floeError('INVALID_ARGUMENT', `${what} points at snapshot ${idToString(id)}, which is not in the snapshot list`);
}

function parentIndex(index: HistoryIndex<SnapshotInfo>, position: number): number {
  const parent = index.parentPosition(position);
  if (parent !== MISSING_PARENT) return parent; // NO_PARENT is the file's -1
  const s = index.at(position);
  throw notListed(`the parent of ${idToString(s.id)}`, s.parentId ?? s.id);
}

// Once per snapshot on every commit: no BigInt, and no sort or map for the common empty metadata.
function writeSnapshotInfo(b: Builder, s: SnapshotInfo, spec: SpecVersion, parent: number): Offset {
  const metadata = s.metadata.length === 0 ? createOffsetVector(b, []) : encodeMetadataItems(b, s.metadata, spec);
  const message = createAsciiString(b, s.message);
  b.startObject(5);
  addU64Field(b, 2, s.flushedAt);
  b.addFieldOffset(4, metadata, 0);
  b.addFieldOffset(3, message, 0);
  b.addFieldInt32(1, parent, 0);
  addIdField(b, 0, s.id);
  return b.endObject();
}

// Up to `num_updates_per_repo_info_file` entries (1,000 by default) on every commit.
function writeEntry(b: Builder, entry: OpsLogEntry): Offset {
  const update = writeUpdate(b, entry.update);
  const backup = entry.backupPath === null ? undefined : createAsciiString(b, entry.backupPath);
  b.startObject(4);
  addU64Field(b, 2, entry.updatedAt);
  if (backup !== undefined) b.addFieldOffset(3, backup, 0);
  b.addFieldOffset(1, update, 0);
  b.addFieldInt8(0, UPDATE_TYPE_CODES[entry.update.kind], 0);
  return b.endObject();
}

/**
 * The repository configuration as a JSON-like value (FlexBuffers map). Its keys come out in the
 * order the writer pushed them (the reference: struct field declaration order), so
 * `encodeRepoConfig(decodeRepoConfig(bytes))` gives back the same bytes.
 */
export function decodeRepoConfig(config: Uint8Array, where?: string): MetadataValue {
  return decodeFlexbuffer(config, where);
}

/**
 * Encodes a configuration value, pushing keys in the object's own order as serde does for a
 * struct; byte-identical to the reference for every configuration it wrote in the fixtures.
 */
export function encodeRepoConfig(value: MetadataValue): Uint8Array {
  return encodeFlexValue(value);
}
