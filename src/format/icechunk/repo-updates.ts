// The ops-log entries of a repo info file: one table per update type, joined by a union.
import type { Builder, Offset } from 'flatbuffers';
import type { FlatbufferReader } from './flatbuffer-reader.ts';
import { addIdField, createAsciiString } from './flatbuffer-writer.ts';
import { asSnapshotId, type SnapshotId } from './ids.ts';

/** Whether a repository accepts writes (`online`), only reads (`read-only`), or neither (`offline`). */
export type RepoAvailability = 'online' | 'read-only' | 'offline';
const AVAILABILITIES: readonly RepoAvailability[] = ['online', 'read-only', 'offline'];

/** A repository's availability, when it was set and why (see {@link Repository.setStatus}). */
export interface RepoStatus {
  availability: RepoAvailability;
  /** Microseconds since the Unix epoch. */
  setAt: number;
  limitedAvailabilityReason: string | null;
}

export type RepoUpdate =
  | { kind: 'repoInitialized' }
  | { kind: 'repoMigrated'; fromVersion: number; toVersion: number }
  | { kind: 'configChanged' }
  | { kind: 'metadataChanged' }
  | { kind: 'tagCreated'; name: string }
  | { kind: 'tagDeleted'; name: string; previousSnapId: SnapshotId }
  | { kind: 'branchCreated'; name: string }
  | { kind: 'branchDeleted'; name: string; previousSnapId: SnapshotId }
  | { kind: 'branchReset'; name: string; previousSnapId: SnapshotId }
  | { kind: 'newCommit'; branch: string; newSnapId: SnapshotId }
  | { kind: 'commitAmended'; branch: string; previousSnapId: SnapshotId; newSnapId: SnapshotId }
  | { kind: 'newDetachedSnapshot'; newSnapId: SnapshotId }
  | { kind: 'gcRan' }
  | { kind: 'expirationRan' }
  | { kind: 'featureFlagChanged'; id: number; newValue: boolean; isSet: boolean }
  | { kind: 'repoStatusChanged'; status: RepoStatus };

export type RepoUpdateKind = RepoUpdate['kind'];

/** Union discriminants, in schema order (0 is NONE). Keyed by kind so a new kind fails the build. */
export const UPDATE_TYPE_CODES: Record<RepoUpdateKind, number> = {
  repoInitialized: 1,
  repoMigrated: 2,
  configChanged: 3,
  metadataChanged: 4,
  tagCreated: 5,
  tagDeleted: 6,
  branchCreated: 7,
  branchDeleted: 8,
  branchReset: 9,
  newCommit: 10,
  commitAmended: 11,
  newDetachedSnapshot: 12,
  gcRan: 13,
  expirationRan: 14,
  featureFlagChanged: 15,
  repoStatusChanged: 16,
};
const KIND_BY_CODE = new Map(Object.entries(UPDATE_TYPE_CODES).map(([k, v]) => [v, k as RepoUpdateKind]));

export function readStatus(r: FlatbufferReader, t: number): RepoStatus {
  const code = r.u8(t, 0);
  const availability = AVAILABILITIES[code] ?? r.corrupt(`unknown repo availability ${code}`);
  return { availability, setAt: r.u64n(t, 1), limitedAvailabilityReason: r.string(t, 2) ?? null };
}

export function writeStatus(b: Builder, status: RepoStatus): Offset {
  const reason = status.limitedAvailabilityReason === null ? undefined : b.createString(status.limitedAvailabilityReason);
  b.startObject(3);
  b.addFieldInt64(1, BigInt(status.setAt), 0n);
  if (reason !== undefined) b.addFieldOffset(2, reason, 0);
  b.addFieldInt8(0, AVAILABILITIES.indexOf(status.availability), 0);
  return b.endObject();
}

const snap = (r: FlatbufferReader, t: number, slot: number, name: string): SnapshotId =>
  asSnapshotId(r.requiredStruct(t, slot, 12, name));

export function readUpdate(r: FlatbufferReader, code: number, t: number): RepoUpdate {
  const kind = KIND_BY_CODE.get(code) ?? r.corrupt(`unknown update type ${code}`);
  const name = (slot = 0) => r.requiredString(t, slot, `${kind}.name`);
  switch (kind) {
    case 'repoInitialized':
    case 'configChanged':
    case 'metadataChanged':
    case 'gcRan':
    case 'expirationRan':
      return { kind };
    case 'repoMigrated':
      return { kind, fromVersion: r.u8(t, 0), toVersion: r.u8(t, 1) };
    case 'tagCreated':
    case 'branchCreated':
      return { kind, name: name() };
    case 'tagDeleted':
    case 'branchDeleted':
    case 'branchReset':
      return { kind, name: name(), previousSnapId: snap(r, t, 1, 'previous_snap_id') };
    case 'newCommit':
      return { kind, branch: name(), newSnapId: snap(r, t, 1, 'new_snap_id') };
    case 'commitAmended':
      return { kind, branch: name(), previousSnapId: snap(r, t, 1, 'previous_snap_id'), newSnapId: snap(r, t, 2, 'new_snap_id') };
    case 'newDetachedSnapshot':
      return { kind, newSnapId: snap(r, t, 0, 'new_snap_id') };
    case 'featureFlagChanged':
      return { kind, id: r.u16(t, 0), newValue: r.bool(t, 1), isSet: r.bool(t, 2) };
    case 'repoStatusChanged': {
      const status = r.childTable(t, 0);
      return { kind, status: status === undefined ? { availability: 'online', setAt: 0, limitedAvailabilityReason: null } : readStatus(r, status) };
    }
  }
}

/** Writes the union member table; fields in flatc's `create` order (largest first, reversed). */
export function writeUpdate(b: Builder, u: RepoUpdate): Offset {
  switch (u.kind) {
    case 'repoInitialized':
    case 'configChanged':
    case 'metadataChanged':
    case 'gcRan':
    case 'expirationRan':
      b.startObject(0);
      return b.endObject();
    case 'repoMigrated':
      b.startObject(2);
      b.addFieldInt8(1, u.toVersion, 0);
      b.addFieldInt8(0, u.fromVersion, 0);
      return b.endObject();
    case 'tagCreated':
    case 'branchCreated': {
      const name = createAsciiString(b, u.name);
      b.startObject(1);
      b.addFieldOffset(0, name, 0);
      return b.endObject();
    }
    case 'tagDeleted':
    case 'branchDeleted':
    case 'branchReset': {
      const name = createAsciiString(b, u.name);
      b.startObject(2);
      addIdField(b, 1, u.previousSnapId);
      b.addFieldOffset(0, name, 0);
      return b.endObject();
    }
    case 'newCommit': {
      const branch = createAsciiString(b, u.branch);
      b.startObject(2);
      addIdField(b, 1, u.newSnapId);
      b.addFieldOffset(0, branch, 0);
      return b.endObject();
    }
    case 'commitAmended': {
      const branch = createAsciiString(b, u.branch);
      b.startObject(3);
      addIdField(b, 2, u.newSnapId);
      addIdField(b, 1, u.previousSnapId);
      b.addFieldOffset(0, branch, 0);
      return b.endObject();
    }
    case 'newDetachedSnapshot':
      b.startObject(1);
      addIdField(b, 0, u.newSnapId);
      return b.endObject();
    case 'featureFlagChanged':
      b.startObject(3);
      b.addFieldInt16(0, u.id, 0);
      b.addFieldInt8(2, u.isSet ? 1 : 0, 0);
      b.addFieldInt8(1, u.newValue ? 1 : 0, 0);
      return b.endObject();
    case 'repoStatusChanged': {
      const status = writeStatus(b, u.status);
      b.startObject(1);
      b.addFieldOffset(0, status, 0);
      return b.endObject();
    }
  }
}
