// A repository with a long history, written at the format level in well under a second per
// 10^5 snapshots (committing them one by one would take minutes). A real repository is created
// and gets one real commit (`/a`, an int32 array of small chunks); then its repo info is
// rewritten so that commit sits on top of `n` synthetic snapshots: initial <- s1 <- ... <- sn <-
// tip, one second apart, messages `commit i`, and an ops log as full as such a history leaves it.
// Both Floe and the reference open the result; only snapshots named in `materialize` (by depth
// below the tip) get snapshot objects, so reads and as-of sessions can land there.
import { newSnapshotId, type SnapshotId } from '../../src/format/icechunk/ids.ts';
import { overwrittenRepoKey, PREFIXES, REPO_INFO_KEY, snapshotKey } from '../../src/format/icechunk/keys.ts';
import { decodeRepoInfo, encodeRepoInfo, type OpsLogEntry, type RepoInfo, type SnapshotInfo } from '../../src/format/icechunk/repo-info.ts';
import { decodeSnapshot, encodeSnapshot } from '../../src/format/icechunk/snapshot.ts';
import type { ObjectStorage } from '../../src/engine/storage/types.ts';
import { Repository, Storage } from '../../src/txn/index.ts';

export const CHUNK_VALUES = 4;
export const CHUNKS = 1 << 16;
const enc = (value: unknown) => new TextEncoder().encode(JSON.stringify(value));

export const groupJson = enc({ zarr_format: 3, node_type: 'group', attributes: {} });
export const arrayJson = enc({
  zarr_format: 3, node_type: 'array', shape: [CHUNKS * CHUNK_VALUES], data_type: 'int32',
  chunk_grid: { name: 'regular', configuration: { chunk_shape: [CHUNK_VALUES] } },
  chunk_key_encoding: { name: 'default', configuration: { separator: '/' } },
  fill_value: 0, codecs: [{ name: 'bytes', configuration: { endian: 'little' } }], attributes: {},
});
export const chunkBytes = (value: number) => new Uint8Array(Int32Array.from({ length: CHUNK_VALUES }, () => value).buffer);

export interface SyntheticHistory {
  /** Snapshots on main's ancestry, the initial one and the tip included. */
  depth: number;
  /** Id and time (µs) of each materialised snapshot, by its depth below the tip. */
  materialized: Map<number, { id: string; flushedAt: number }>;
}

/** Writes the repository into `storage` (empty). `opsLogLimit`: entries the file's ops log holds. */
export async function writeSyntheticHistory(storage: ObjectStorage, n: number, options: { materialize?: number[]; opsLogLimit?: number } = {}): Promise<SyntheticHistory> {
  const repo = await Repository.create(Storage.fromObjectStorage(storage));
  const session = await repo.writableSession('main');
  await session.store.set('zarr.json', groupJson);
  await session.store.set('a/zarr.json', arrayJson);
  await session.store.set('a/c/0', chunkBytes(1));
  await session.commit('tip');
  const got = await storage.get(REPO_INFO_KEY);
  if (!got) throw new Error('synthetic history: no repo info after the first commit');
  const info = decodeRepoInfo(got.bytes);
  const initial = info.snapshots.find((s) => s.parentId === null);
  const tip = info.snapshots.find((s) => s.parentId !== null);
  if (!initial || !tip) throw new Error('synthetic history: expected the initial snapshot and one commit');
  const second = 1_000_000;
  const start = tip.flushedAt - (n + 1) * second;
  const chain: SnapshotInfo[] = [{ ...initial, flushedAt: start }];
  for (let i = 1; i <= n; i++) chain.push({ id: newSnapshotId(), parentId: chain[i - 1]!.id, flushedAt: start + i * second, message: `commit ${i}`, metadata: [] });
  chain.push({ ...tip, parentId: chain[n]!.id });
  const next: RepoInfo = { ...info, snapshots: chain, latestUpdates: opsLog(chain, info, options.opsLogLimit ?? 1000) };
  await storage.put(REPO_INFO_KEY, encodeRepoInfo(next), { ifMatch: got.version });
  const materialized = new Map<number, { id: string; flushedAt: number }>();
  const initialObject = decodeSnapshot((await storage.get(snapshotKey(initial.id)))!.bytes);
  for (const depth of options.materialize ?? []) {
    const s = chain[chain.length - 1 - depth];
    if (!s) continue;
    if (depth > 0 && s.parentId !== null) await storage.put(snapshotKey(s.id), encodeSnapshot({ ...initialObject, id: s.id, message: s.message, flushedAt: s.flushedAt }));
    materialized.set(depth, { id: snapshotKeyName(s.id), flushedAt: s.flushedAt });
  }
  return { depth: chain.length, materialized };
}

const snapshotKeyName = (id: SnapshotId) => snapshotKey(id).slice(PREFIXES.snapshots.length);

/** The newest `limit` updates of such a history, newest first, in the reference's layout. */
function opsLog(chain: readonly SnapshotInfo[], info: RepoInfo, limit: number): OpsLogEntry[] {
  const entries: OpsLogEntry[] = [];
  for (let i = chain.length - 1; i >= 1 && entries.length < limit - 1; i--) {
    const s = chain[i]!;
    entries.push({ update: { kind: 'newCommit', branch: 'main', newSnapId: s.id }, updatedAt: s.flushedAt, backupPath: entries.length === 0 ? null : backupName(s.flushedAt) });
  }
  const first = info.latestUpdates.at(-1);
  if (first) entries.push({ ...first, backupPath: backupName(chain[0]!.flushedAt) });
  return entries;
}

const backupName = (micros: number) => overwrittenRepoKey(micros / 1000).slice(PREFIXES.overwritten.length);
