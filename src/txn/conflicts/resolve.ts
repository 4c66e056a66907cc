// Applying a choice to one conflict: how "use ours" and "use theirs" patch our change set for
// each kind. Some choices have no meaning (our zarr.json update of an array they deleted cannot
// win: the array and its chunks are gone) and report false, which the solvers turn into a
// failure. "use ours" usually needs nothing: replayed on top of their commit, our change wins.
import { idToString, parseNodeId } from '../../format/icechunk/ids.ts';
import { coordsKey, type ChangeSet } from '../change-set.ts';
import type { LoadedSnapshot } from '../objects.ts';
import type { Conflict, VersionSelection } from './conflict.ts';

const isUnder = (path: string, ancestor: string) => (ancestor === '/' ? path !== '/' : path.startsWith(ancestor + '/'));

/** Patches `changes` (a clone the caller owns) so the conflict is settled as chosen; false if it cannot be. */
export function applyChoice(changes: ChangeSet, conflict: Conflict, choice: VersionSelection, theirs: LoadedSnapshot): boolean {
  if (choice === 'fail') return false;
  const id = parseNodeId(conflict.nodeId);
  const ours = choice === 'useOurs';
  switch (conflict.type) {
    case 'ChunkDoubleUpdate':
      if (!ours) changes.dropChunkChanges(id, conflict.chunkCoordinates.map(coordsKey));
      return true;
    case 'ChunksUpdatedInUpdatedArray':
      // Ours: keep our chunks under their new metadata (chunks outside a shrunk grid are dropped at commit).
      if (!ours) changes.dropChunkChanges(id);
      return true;
    case 'ChunksUpdatedInDeletedArray':
      if (ours) return false;
      changes.dropChunkChanges(id);
      return true;
    case 'ZarrMetadataDoubleUpdate':
      if (!ours) changes.undoUpdate(id);
      return true;
    case 'ZarrMetadataUpdateOfDeletedArray':
    case 'ZarrMetadataUpdateOfDeletedGroup':
      if (ours) return false;
      changes.undoUpdate(id);
      return true;
    case 'DeleteOfUpdatedArray':
      if (!ours) changes.undoDelete(id);
      return true;
    case 'DeleteOfUpdatedGroup':
      if (!ours) {
        changes.undoDelete(id);
        return true;
      }
      // Our delete wins, so whatever they put below the group goes too.
      for (const node of theirs.snapshot.nodes) {
        if (isUnder(node.path, conflict.path)) changes.deleteNode(node.id, node.nodeData.kind, node.path);
      }
      return true;
    case 'NewNodeConflictsWithExistingNode':
      if (ours) {
        // Ours replaces their node and everything below it.
        for (const node of theirs.snapshot.nodes) {
          if (node.path === conflict.path || isUnder(node.path, conflict.path)) changes.deleteNode(node.id, node.nodeData.kind, node.path);
        }
      } else {
        dropNewNodesAt(changes, conflict.path);
      }
      return true;
    case 'NewNodeInInvalidGroup':
      if (ours) return false;
      dropNewNodesAt(changes, conflict.newNodePath);
      return true;
    case 'MoveOperationCannotBeRebased':
      if (ours) return false;
      // Their version of the subtree stays where they put it: forget our move of it and its descendants.
      for (const move of [...changes.movedNodes.values()]) {
        if (idToString(move.id) === conflict.nodeId || isUnder(move.from, conflict.from)) changes.undoMove(move.id);
      }
      return true;
  }
}

/** Drops our new node at `path` and our new nodes below it. */
function dropNewNodesAt(changes: ChangeSet, path: string): void {
  for (const node of [...changes.newNodes.values()]) {
    if (node.path === path || isUnder(node.path, path)) changes.dropNewNode(node.id);
  }
}
