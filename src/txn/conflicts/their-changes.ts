// One commit's transaction log as id sets, for the detector's many "did they touch X" questions.
import { idToString, type NodeId } from '../../format/icechunk/ids.ts';
import type { TransactionLog } from '../../format/icechunk/transaction-log.ts';
import { coordsKey } from '../change-set.ts';

export interface TheirChanges {
  newNodes: Set<string>;
  updatedArrays: Set<string>;
  updatedGroups: Set<string>;
  deletedArrays: Set<string>;
  deletedGroups: Set<string>;
  movedNodes: Set<string>;
  /** node id -> coordinate keys they wrote or deleted. */
  chunks: Map<string, Set<string>>;
}

export function theirChanges(log: TransactionLog): TheirChanges {
  const ids = (list: readonly NodeId[]) => new Set(list.map(idToString));
  return {
    newNodes: new Set([...ids(log.newArrays), ...ids(log.newGroups)]),
    updatedArrays: ids(log.updatedArrays),
    updatedGroups: ids(log.updatedGroups),
    deletedArrays: ids(log.deletedArrays),
    deletedGroups: ids(log.deletedGroups),
    movedNodes: new Set(log.movedNodes.map((m) => idToString(m.nodeId))),
    chunks: new Map(log.updatedChunks.map((u) => [idToString(u.nodeId), new Set(u.chunks.map(coordsKey))])),
  };
}
