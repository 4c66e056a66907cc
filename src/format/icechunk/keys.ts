// Every object key of an Icechunk repository, built in one place so that write, read, list and
// garbage collection cannot disagree on a prefix or an encoding. Keys are relative to the
// repository root and use '/' separators.
import { floeError } from '../../errors.ts';
import {
  decodeBase32,
  encodeBase32,
  ID12_LENGTH,
  newSnapshotId,
  type ChunkId,
  type Id12,
  type ManifestId,
  type SnapshotId,
} from './ids.ts';

export const PREFIXES = {
  snapshots: 'snapshots/',
  manifests: 'manifests/',
  chunks: 'chunks/',
  transactions: 'transactions/',
  overwritten: 'overwritten/',
  /** Spec 1 only. */
  refs: 'refs/',
} as const;

export const REPO_INFO_KEY = 'repo';
/** Spec 1 only. */
export const V1_CONFIG_KEY = 'config.yaml';

export const snapshotKey = (id: SnapshotId): string => PREFIXES.snapshots + encodeBase32(id);
export const manifestKey = (id: ManifestId): string => PREFIXES.manifests + encodeBase32(id);
export const chunkKey = (id: ChunkId): string => PREFIXES.chunks + encodeBase32(id);
/** A transaction log shares its snapshot's id. */
export const transactionLogKey = (id: SnapshotId): string => PREFIXES.transactions + encodeBase32(id);

/** Milliseconds of 3000-01-01T00:00:00Z: backups sort newest first under `overwritten/`. */
const YEAR_3000_MS = Date.UTC(3000, 0, 1);

/**
 * Key for a backup of the repo file: `overwritten/repo.<ms until 3000, 14 digits>.<random id>`.
 * `nowMs` and the random part are parameters so callers (and tests) control time and entropy.
 */
export function overwrittenRepoKey(nowMs: number, random: Uint8Array = newSnapshotId()): string {
  const remaining = YEAR_3000_MS - Math.floor(nowMs);
  if (!(remaining >= 0 && remaining < 1e14)) {
    throw floeError('INVALID_ARGUMENT', `timestamp ${nowMs} ms is outside the range the backup key can encode`);
  }
  if (random.length !== ID12_LENGTH) throw floeError('INVALID_ARGUMENT', 'the backup key needs 12 random bytes');
  return `${PREFIXES.overwritten}repo.${String(remaining).padStart(14, '0')}.${encodeBase32(random)}`;
}

/** The id encoded in a key under one of the id prefixes, or undefined for any other key. */
export function idFromKey(prefix: typeof PREFIXES.snapshots | typeof PREFIXES.manifests | typeof PREFIXES.chunks | typeof PREFIXES.transactions, key: string): Id12 | undefined {
  if (!key.startsWith(prefix)) return undefined;
  return decodeBase32(key.slice(prefix.length), ID12_LENGTH) as Id12 | undefined;
}

// Spec-1 refs: `refs/branch.<name>/ref.json`, `refs/tag.<name>/ref.json`, and a deleted tag
// marked by `refs/tag.<name>/ref.json.deleted`.
export const v1BranchKey = (name: string): string => `${PREFIXES.refs}branch.${name}/ref.json`;
export const v1TagKey = (name: string): string => `${PREFIXES.refs}tag.${name}/ref.json`;
export const v1DeletedTagKey = (name: string): string => `${PREFIXES.refs}tag.${name}/ref.json.deleted`;

export type V1RefKey =
  | { kind: 'branch'; name: string }
  | { kind: 'tag'; name: string }
  | { kind: 'deleted-tag'; name: string };

/** Classifies a key listed under `refs/`; undefined for anything else. */
export function parseV1RefKey(key: string): V1RefKey | undefined {
  const match = /^refs\/(branch|tag)\.(.+)\/ref\.json(\.deleted)?$/s.exec(key);
  if (!match) return undefined;
  const [, kind, name, deleted] = match;
  if (deleted) return kind === 'tag' ? { kind: 'deleted-tag', name: name! } : undefined;
  return { kind: kind as 'branch' | 'tag', name: name! };
}
