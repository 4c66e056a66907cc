// Conflict detection: which of our changes clash with one commit the other side made. This is
// the solver that changes nothing (`ConflictDetector`): no conflicts, our changes apply as they
// are; any conflict, it fails listing every one. The other solvers start from its list.
import { idToString } from '../../format/icechunk/ids.ts';
import type { NodeSnapshot } from '../../format/icechunk/snapshot.ts';
import { parseCoordsKey } from '../change-set.ts';
import { NodeView } from '../node-view.ts';
import type { Conflict } from './conflict.ts';
import type { ConflictSolver, Resolution, SolveInput } from './solver.ts';
import { theirChanges } from './their-changes.ts';

const parentOf = (path: string) => (path === '/' ? undefined : path.slice(0, path.lastIndexOf('/')) || '/');
const isUnder = (path: string, ancestor: string) => ancestor === '/' ? path !== '/' : path.startsWith(ancestor + '/');

export function detectConflicts(input: SolveInput): Conflict[] {
  const { ours, ourBase, theirs } = input;
  const their = theirChanges(input.theirLog);
  const out: Conflict[] = [];
  // Paths as this session sees them, for messages; nodes gone from our view fall back to theirs.
  const ourPaths = new Map(new NodeView(ourBase, ours).nodes().map((n) => [idToString(n.id), n.path]));
  const theirById = new Map(theirs.snapshot.nodes.map((n) => [idToString(n.id), n]));
  const pathOf = (key: string) => ourPaths.get(key) ?? theirById.get(key)?.path ?? ours.deletedNodes.get(key)?.path ?? '?';
  // A node of theirs at a path is "in the way" unless our changes remove it from there.
  const inTheWay = (node: NodeSnapshot | undefined) => {
    if (!node) return false;
    const key = idToString(node.id);
    return !ours.deletedNodes.has(key) && !ours.movedNodes.has(key);
  };

  for (const [key, node] of ours.newNodes) {
    const existing = theirs.byPath.get(node.path);
    if (inTheWay(existing)) out.push({ type: 'NewNodeConflictsWithExistingNode', path: node.path, nodeId: idToString(existing!.id) });
    const parent = parentOf(node.path);
    if (parent === undefined || ours.newNodeAt(parent) || ours.movedTo(parent)) continue;
    const theirParent = theirs.byPath.get(parent);
    const baseParent = ourBase.byPath.get(parent);
    const parentGone = baseParent !== undefined && (theirParent === undefined || idToString(theirParent.id) !== idToString(baseParent.id));
    if (parentGone || theirParent?.nodeData.kind === 'array') {
      out.push({ type: 'NewNodeInInvalidGroup', path: parent, nodeId: key, newNodePath: node.path });
    }
  }

  for (const key of ours.updatedNodes.keys()) {
    const at = { path: pathOf(key), nodeId: key };
    if (their.updatedArrays.has(key) || their.updatedGroups.has(key)) out.push({ type: 'ZarrMetadataDoubleUpdate', ...at });
    if (their.deletedArrays.has(key)) out.push({ type: 'ZarrMetadataUpdateOfDeletedArray', ...at });
    if (their.deletedGroups.has(key)) out.push({ type: 'ZarrMetadataUpdateOfDeletedGroup', ...at });
  }

  for (const [key, changes] of ours.chunks) {
    if (changes.size === 0 || ours.newNodes.has(key)) continue;
    const at = { path: pathOf(key), nodeId: key };
    if (their.deletedArrays.has(key)) out.push({ type: 'ChunksUpdatedInDeletedArray', ...at });
    if (their.updatedArrays.has(key)) out.push({ type: 'ChunksUpdatedInUpdatedArray', ...at });
    const theirCoords = their.chunks.get(key);
    if (!theirCoords) continue;
    const both = [...changes.keys()].filter((c) => theirCoords.has(c));
    if (both.length > 0) out.push({ type: 'ChunkDoubleUpdate', ...at, chunkCoordinates: both.map(parseCoordsKey) });
  }

  for (const [key, deleted] of ours.deletedNodes) {
    if (!theirById.has(key)) continue; // they deleted it too: nothing to clash
    const at = { path: deleted.path, nodeId: key };
    if (deleted.kind === 'array' && (their.updatedArrays.has(key) || their.chunks.has(key))) out.push({ type: 'DeleteOfUpdatedArray', ...at });
    if (deleted.kind === 'group') {
      // Nodes they created (or moved) below a group we delete would be left without a parent.
      const grew = theirs.snapshot.nodes.some((n) => isUnder(n.path, deleted.path) && !ours.deletedNodes.has(idToString(n.id)));
      if (their.updatedGroups.has(key) || grew) out.push({ type: 'DeleteOfUpdatedGroup', ...at });
    }
  }

  for (const [key, move] of ours.movedNodes) {
    const gone = !theirById.has(key) || their.movedNodes.has(key);
    const occupant = theirs.byPath.get(move.to);
    const taken = occupant !== undefined && idToString(occupant.id) !== key && inTheWay(occupant);
    if (gone || taken) out.push({ type: 'MoveOperationCannotBeRebased', path: move.to, nodeId: key, from: move.from, to: move.to });
  }
  return out;
}

/** The solver that changes nothing: fails listing every conflict. */
export class ConflictDetector implements ConflictSolver {
  async solve(input: SolveInput): Promise<Resolution> {
    const conflicts = detectConflicts(input);
    return conflicts.length === 0 ? { kind: 'patched', changes: input.ours } : { kind: 'unsolvable', conflicts };
  }
}
