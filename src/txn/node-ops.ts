// Writes into a session's change set: set a node's zarr.json (creating, updating or replacing the
// node), delete a subtree, move a subtree, write or delete a chunk. The session store and the
// session's own methods both call these, so the rules are written once.
import { floeError } from '../errors.ts';
import type { AbortOptions } from '../engine/storage/types.ts';
import { newNodeId } from '../format/icechunk/ids.ts';
import type { ChunkRef, VirtualChecksum } from '../format/icechunk/manifest.ts';
import { isValidNodePath } from '../format/icechunk/node-path.ts';
import { parseNodeMetadata } from '../format/zarr/metadata.ts';
import type { ChangeSet, NodeDefinition } from './change-set.ts';
import { arrayInfoOf, type NodeView, type ResolvedNode } from './node-view.ts';
import type { ChunkPacker } from './chunk-packer.ts';
import type { RepoObjects } from './objects.ts';

/** What the write operations need from a session. */
export interface WriteContext {
  readonly objects: RepoObjects;
  /** Where chunks above the inline threshold are written (small ones share pack objects). */
  readonly packer: ChunkPacker;
  readonly changes: ChangeSet;
  readonly inlineThreshold: number;
  view(): NodeView;
  /** Throws READ_ONLY unless the session can write. */
  assertWritable(what: string): void;
}

export function definitionFromMetadata(bytes: Uint8Array, where: string): NodeDefinition {
  const meta = parseNodeMetadata(bytes, where);
  // Keep the caller's bytes: zarr.json is stored exactly as written.
  const userData = bytes.slice();
  return meta.nodeType === 'array'
    ? { kind: 'array', userData, array: arrayInfoOf(meta) }
    : { kind: 'group', userData, array: undefined };
}

const sameBytes = (a: Uint8Array, b: Uint8Array): boolean => a.length === b.length && a.every((x, i) => x === b[i]);

export function setNodeMetadata(ctx: WriteContext, path: string, bytes: Uint8Array): void {
  ctx.assertWritable(`${path}/zarr.json`);
  const definition = definitionFromMetadata(bytes, `${path}/zarr.json`);
  const existing = ctx.view().nodeAt(path);
  if (existing && existing.kind === definition.kind) {
    // The bytes it already has are no change (as the reference): writers that re-save unchanged
    // metadata must not collide as ZarrMetadataDoubleUpdate or turn an empty session into a commit.
    if (!sameBytes(existing.userData, bytes)) ctx.changes.updateNode(existing.id, definition);
    return;
  }
  // A different kind replaces the node (and, for a group, everything below it).
  if (existing) deleteSubtree(ctx, path);
  ctx.changes.addNode({ id: newNodeId(), path, ...definition });
}

/** Deletes the node at `path` and its descendants; false when there is no node there. */
export function deleteSubtree(ctx: WriteContext, path: string): boolean {
  ctx.assertWritable(path);
  const nodes = ctx.view().subtree(path);
  if (nodes.length === 0) return false;
  for (const node of nodes.reverse()) ctx.changes.deleteNode(node.id, node.kind, node.base?.path);
  return true;
}

/** The caller checks the session may move (writable or rearrange). */
export function moveSubtree(ctx: WriteContext, from: string, to: string): void {
  for (const p of [from, to]) {
    if (!isValidNodePath(p) || p === '/') throw floeError('INVALID_ARGUMENT', `cannot move ${JSON.stringify(p)}: give an absolute, non-root node path`, { where: p });
  }
  if (to === from || to.startsWith(from + '/')) throw floeError('INVALID_ARGUMENT', `cannot move ${from} into itself (${to})`, { where: from });
  const view = ctx.view();
  const nodes = view.subtree(from);
  if (nodes.length === 0) throw floeError('NOT_FOUND', `cannot move ${from}: no node there`, { where: from });
  if (view.nodeAt(to)) throw floeError('ALREADY_EXISTS', `cannot move ${from} to ${to}: a node exists there`, { where: to });
  const parent = to.slice(0, to.lastIndexOf('/')) || '/';
  if (parent !== '/' && view.nodeAt(parent)?.kind !== 'group') {
    throw floeError('NOT_FOUND', `cannot move ${from} to ${to}: the parent group ${parent} does not exist`, { where: to });
  }
  for (const node of nodes) ctx.changes.moveNode(node.id, node.kind, node.base?.path, to + node.path.slice(from.length));
}

/**
 * Records a chunk. Tiny chunks go inline; larger ones go to the session's packer (a shared pack
 * object for small chunks, an object of their own for big ones), so the session holds
 * references, not bytes, and commit writes at most the last pack before the metadata.
 */
export async function writeChunk(ctx: WriteContext, node: ResolvedNode, coords: number[], bytes: Uint8Array, options?: AbortOptions): Promise<void> {
  ctx.assertWritable(node.path);
  let ref: ChunkRef;
  if (bytes.length <= ctx.inlineThreshold) {
    ref = { kind: 'inline', index: coords, data: bytes.slice() };
  } else {
    ref = { kind: 'native', index: coords, ...(await ctx.packer.write(bytes, options)) };
  }
  ctx.changes.setChunk(node.id, coords, ref);
}

export function deleteChunk(ctx: WriteContext, node: ResolvedNode, coords: number[]): void {
  ctx.assertWritable(node.path);
  ctx.changes.setChunk(node.id, coords, null);
}

export interface VirtualRefInput {
  location: string;
  offset: number;
  length: number;
  etag?: string | null;
  lastModified?: Date | null;
}

export function setVirtualChunk(ctx: WriteContext, node: ResolvedNode, coords: number[], input: VirtualRefInput): void {
  ctx.assertWritable(node.path);
  if (!Number.isSafeInteger(input.offset) || input.offset < 0 || !Number.isSafeInteger(input.length) || input.length < 0) {
    throw floeError('INVALID_ARGUMENT', `virtual ref offset and length must be non-negative integers, got ${input.offset} and ${input.length}`, { where: node.path });
  }
  const checksum: VirtualChecksum =
    input.etag ? { etag: input.etag }
    : input.lastModified ? { lastModified: Math.floor(input.lastModified.getTime() / 1000) }
    : null;
  ctx.changes.setChunk(node.id, coords, { kind: 'virtual', index: coords, location: input.location, offset: input.offset, length: input.length, checksum });
}
