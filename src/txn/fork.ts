// Forks: cheap writable sessions on one snapshot that other workers (threads, processes,
// machines) write into, then hand back to be merged into one commit. A fork travels as JSON:
// its snapshot id and its change set, which holds chunk references, not chunk bytes (chunks
// above the inline threshold were written to chunk objects by the worker at `set` time), plus
// the one pack of small chunks the worker had not filled yet (see chunk-packer.ts), which the
// merging session writes when it commits.
import { floeError, isFloeError } from '../errors.ts';
import { parseJson } from '../format/json.ts';
import { idToString, parseChunkId, parseNodeId, type ChunkId, type NodeId } from '../format/icechunk/ids.ts';
import type { ChunkRef, VirtualChecksum } from '../format/icechunk/manifest.ts';
import { ChangeSet, coordsKey, parseCoordsKey, type ArrayShapeInfo, type ChunkChange, type NodeKind } from './change-set.ts';
import type { Conflict } from './conflicts/conflict.ts';
import { NodeView } from './node-view.ts';
import type { LoadedSnapshot } from './objects.ts';
import { fromBase64, toBase64 } from '../platform/host.ts';

export const FORK_FORMAT = 'floe-fork';

type ChunkRefJSON =
  | { kind: 'inline'; data: string }
  | { kind: 'native'; chunkId: string; offset: number; length: number }
  | { kind: 'virtual'; location: string; offset: number; length: number; checksum: VirtualChecksum };

interface NodeJSON {
  id: string;
  kind: NodeKind;
  /** zarr.json, base64. */
  userData: string;
  array: ArrayShapeInfo | null;
}

export interface ChangeSetJSON {
  newNodes: (NodeJSON & { path: string })[];
  updatedNodes: NodeJSON[];
  deletedNodes: { id: string; kind: NodeKind; path: string }[];
  movedNodes: { id: string; kind: NodeKind; from: string; to: string }[];
  /** Per node id: [coordinates key, ref or null (deleted)]. */
  chunks: { nodeId: string; changes: [string, ChunkRefJSON | null][] }[];
}

/**
 * A fork of a writable session, as JSON: its snapshot id and change set (chunk references, not chunk
 * bytes), to send to another worker and merge back into one commit.
 */
export interface ForkJSON {
  format: typeof FORK_FORMAT;
  version: 1;
  /** The snapshot the fork started on. */
  snapshotId: string;
  changes: ChangeSetJSON;
  /** Packs of small chunks not yet in storage: chunk object id and bytes (base64). */
  packs?: { id: string; data: string }[];
}

export interface UnwrittenPack {
  id: ChunkId;
  bytes: Uint8Array;
}

export function packsToJSON(packs: readonly UnwrittenPack[]): { id: string; data: string }[] {
  return packs.map((p) => ({ id: idToString(p.id), data: b64(p.bytes) }));
}

export function packsFromJSON(json: ForkJSON['packs']): UnwrittenPack[] {
  if (json === undefined) return [];
  if (!Array.isArray(json)) throw floeError('INVALID_ARGUMENT', 'a serialised fork\'s packs must be an array of {id, data}');
  return json.map((p) => ({ id: parseChunkId(p.id), bytes: unb64(p.data) }));
}

const b64 = toBase64;
const unb64 = fromBase64;

function refToJSON(ref: ChunkRef): ChunkRefJSON {
  switch (ref.kind) {
    case 'inline':
      return { kind: 'inline', data: b64(ref.data) };
    case 'native':
      return { kind: 'native', chunkId: idToString(ref.chunkId), offset: ref.offset, length: ref.length };
    case 'virtual':
      return { kind: 'virtual', location: ref.location, offset: ref.offset, length: ref.length, checksum: ref.checksum };
  }
}

function refFromJSON(json: ChunkRefJSON, index: number[]): ChunkRef {
  switch (json.kind) {
    case 'inline':
      return { kind: 'inline', index, data: unb64(json.data) };
    case 'native':
      return { kind: 'native', index, chunkId: parseChunkId(json.chunkId), offset: json.offset, length: json.length };
    case 'virtual':
      return { kind: 'virtual', index, location: json.location, offset: json.offset, length: json.length, checksum: json.checksum };
    default:
      throw floeError('INVALID_ARGUMENT', `unknown chunk reference kind in a fork: ${JSON.stringify((json as { kind: unknown }).kind)}`);
  }
}

export function changeSetToJSON(changes: ChangeSet): ChangeSetJSON {
  const node = (n: { id: NodeId; kind: NodeKind; userData: Uint8Array; array: ArrayShapeInfo | undefined }) => ({
    id: idToString(n.id), kind: n.kind, userData: b64(n.userData), array: n.array ?? null,
  });
  return {
    newNodes: [...changes.newNodes.values()].map((n) => ({ ...node(n), path: n.path })),
    updatedNodes: [...changes.updatedNodes.values()].map(node),
    deletedNodes: [...changes.deletedNodes.values()].map((d) => ({ id: idToString(d.id), kind: d.kind, path: d.path })),
    movedNodes: [...changes.movedNodes.values()].map((m) => ({ id: idToString(m.id), kind: m.kind, from: m.from, to: m.to })),
    chunks: [...changes.chunks].map(([nodeId, map]) => ({
      nodeId,
      changes: [...map].map(([coords, change]): [string, ChunkRefJSON | null] => [coords, change && refToJSON(change)]),
    })),
  };
}

/** The change set of fork JSON, into `out` (a new one by default). */
export function changeSetFromJSON(json: ChangeSetJSON, out = new ChangeSet()): ChangeSet {
  const def = (n: NodeJSON) => ({ kind: n.kind, userData: unb64(n.userData), array: n.array ?? undefined });
  for (const n of json.newNodes) out.addNode({ id: parseNodeId(n.id), path: n.path, ...def(n) });
  for (const n of json.updatedNodes) out.updateNode(parseNodeId(n.id), def(n));
  for (const d of json.deletedNodes) out.deleteNode(parseNodeId(d.id), d.kind, d.path);
  for (const m of json.movedNodes) out.moveNode(parseNodeId(m.id), m.kind, m.from, m.to);
  for (const { nodeId, changes } of json.chunks) {
    const id = parseNodeId(nodeId);
    const key = idToString(id);
    for (const [coords, ref] of changes) {
      const index = parseCoordsKey(coords);
      const change: ChunkChange = ref === null ? null : refFromJSON(ref, index);
      out.setChunkByKey(id, key, coordsKey(index), change);
    }
  }
  return out;
}

/** Fork text from a caller: held to the JSON limits; malformed text is the caller's INVALID_ARGUMENT. */
function parseForkText(text: string): unknown {
  try {
    return parseJson(text, 'fork JSON', { exactIntegers: false });
  } catch (err) {
    if (isFloeError(err, 'INVALID_METADATA')) throw floeError('INVALID_ARGUMENT', `${err.message}; pass what fork.toJSON() returned`, { cause: err });
    throw err;
  }
}

export function parseForkJSON(json: unknown): ForkJSON {
  const value = typeof json === 'string' ? parseForkText(json) : json;
  const fork = value as Partial<ForkJSON> | null;
  if (!fork || fork.format !== FORK_FORMAT || fork.version !== 1 || typeof fork.snapshotId !== 'string' || typeof fork.changes !== 'object') {
    throw floeError('INVALID_ARGUMENT', `not a serialised fork (expected {format: '${FORK_FORMAT}', version: 1, snapshotId, changes}); pass what fork.toJSON() returned`);
  }
  return fork as ForkJSON;
}

/**
 * Copies a fork's changes into `into` (both on `base`). Later forks win where two wrote the same
 * chunk or zarr.json, as in the reference. Changes that would make an invalid snapshot are
 * conflicts: two new nodes at one path, or writes into a node another fork deleted.
 */
export function mergeForkChanges(base: LoadedSnapshot, into: ChangeSet, from: ChangeSet): Conflict[] {
  const conflicts: Conflict[] = [];
  const view = new NodeView(base, into);
  for (const [key, n] of from.newNodes) {
    const existing = view.nodeAt(n.path);
    if (existing && idToString(existing.id) !== key && !from.deletedNodes.has(idToString(existing.id))) {
      conflicts.push({ type: 'NewNodeConflictsWithExistingNode', path: n.path, nodeId: idToString(existing.id) });
    }
  }
  const gone = (key: string) => into.deletedNodes.has(key);
  for (const key of from.updatedNodes.keys()) {
    if (gone(key)) conflicts.push({ type: into.deletedNodes.get(key)!.kind === 'array' ? 'ZarrMetadataUpdateOfDeletedArray' : 'ZarrMetadataUpdateOfDeletedGroup', path: into.deletedNodes.get(key)!.path, nodeId: key });
  }
  for (const [key, changes] of from.chunks) {
    if (changes.size > 0 && gone(key)) conflicts.push({ type: 'ChunksUpdatedInDeletedArray', path: into.deletedNodes.get(key)!.path, nodeId: key });
  }
  if (conflicts.length > 0) return conflicts;
  for (const n of from.newNodes.values()) into.addNode(n);
  for (const u of from.updatedNodes.values()) into.updateNode(u.id, u);
  for (const d of from.deletedNodes.values()) into.deleteNode(d.id, d.kind, d.path);
  for (const m of from.movedNodes.values()) into.moveNode(m.id, m.kind, m.from, m.to);
  for (const [key, changes] of from.chunks) {
    const id = from.chunkNodeId(key);
    if (!id || from.deletedNodes.has(key)) continue;
    for (const [coords, change] of changes) into.setChunkByKey(id, key, coords, change);
  }
  return [];
}

