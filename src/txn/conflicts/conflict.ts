// Conflicts as plain data. When a branch moved under a session, each commit made since is
// compared with the session's change set; every clash becomes one of these values. The kinds and
// their names are the reference Icechunk's (its `ConflictType`), so code and messages carry
// over; Floe adds the paths, node ids and chunk coordinates to every kind.

/** The reference's conflict kinds, in its order. */
export const CONFLICT_TYPES = [
  'NewNodeConflictsWithExistingNode', // both sides created a node at one path (e.g. an array and a group)
  'NewNodeInInvalidGroup', // we created a node whose parent they deleted, moved, or made an array
  'ZarrMetadataDoubleUpdate', // both sides changed a node's zarr.json (user attributes, shape, ...)
  'ZarrMetadataUpdateOfDeletedArray', // we changed an array's zarr.json; they deleted the array
  'ZarrMetadataUpdateOfDeletedGroup', // we changed a group's zarr.json; they deleted the group
  'ChunkDoubleUpdate', // both sides wrote (or deleted) the same chunks
  'ChunksUpdatedInDeletedArray', // we wrote chunks of an array they deleted
  'ChunksUpdatedInUpdatedArray', // we wrote chunks of an array whose zarr.json they changed
  'DeleteOfUpdatedArray', // we deleted an array whose metadata or chunks they changed
  'DeleteOfUpdatedGroup', // we deleted a group they changed or created nodes in
  'MoveOperationCannotBeRebased', // our move collides: its node was moved/deleted, or its target taken
] as const;

/** A conflict kind, named as the reference Icechunk's `ConflictType`. */
export type ConflictType = (typeof CONFLICT_TYPES)[number];

interface At {
  /** The node's path as this session sees it (for NewNodeInInvalidGroup: the invalid parent). */
  path: string;
  /** Base32 node id; the other side's node for NewNodeConflictsWithExistingNode. */
  nodeId: string;
}

/**
 * One clash between a session's changes and a commit made on its branch meanwhile, with the path,
 * node id and (for chunks) coordinates involved.
 */
export type Conflict =
  | ({ type: 'NewNodeConflictsWithExistingNode' } & At)
  | ({ type: 'NewNodeInInvalidGroup' } & At & { newNodePath: string })
  | ({ type: 'ZarrMetadataDoubleUpdate' } & At)
  | ({ type: 'ZarrMetadataUpdateOfDeletedArray' } & At)
  | ({ type: 'ZarrMetadataUpdateOfDeletedGroup' } & At)
  | ({ type: 'ChunkDoubleUpdate' } & At & { chunkCoordinates: number[][] })
  | ({ type: 'ChunksUpdatedInDeletedArray' } & At)
  | ({ type: 'ChunksUpdatedInUpdatedArray' } & At)
  | ({ type: 'DeleteOfUpdatedArray' } & At)
  | ({ type: 'DeleteOfUpdatedGroup' } & At)
  | ({ type: 'MoveOperationCannotBeRebased' } & At & { from: string; to: string });

/** What to keep when both sides changed the same thing (the reference's `VersionSelection`). */
export type VersionSelection = 'useOurs' | 'useTheirs' | 'fail';

/** The reference's enum spellings, for code ported from it. */
export const VersionSelection = { UseOurs: 'useOurs', UseTheirs: 'useTheirs', Fail: 'fail' } as const satisfies Record<string, VersionSelection>;

const describers: { [K in ConflictType]: (c: Extract<Conflict, { type: K }>) => string } = {
  NewNodeConflictsWithExistingNode: (c) => `both sides created a node at ${c.path}`,
  NewNodeInInvalidGroup: (c) => `new node ${c.newNodePath} is inside ${c.path}, which the other side deleted, moved or made an array`,
  ZarrMetadataDoubleUpdate: (c) => `both sides changed the zarr.json of ${c.path}`,
  ZarrMetadataUpdateOfDeletedArray: (c) => `changed the zarr.json of array ${c.path}, which the other side deleted`,
  ZarrMetadataUpdateOfDeletedGroup: (c) => `changed the zarr.json of group ${c.path}, which the other side deleted`,
  ChunkDoubleUpdate: (c) => `both sides wrote chunks ${formatCoords(c.chunkCoordinates)} of ${c.path}`,
  ChunksUpdatedInDeletedArray: (c) => `wrote chunks of array ${c.path}, which the other side deleted`,
  ChunksUpdatedInUpdatedArray: (c) => `wrote chunks of array ${c.path}, whose zarr.json the other side changed`,
  DeleteOfUpdatedArray: (c) => `deleted array ${c.path}, which the other side changed`,
  DeleteOfUpdatedGroup: (c) => `deleted group ${c.path}, which the other side changed or added nodes to`,
  MoveOperationCannotBeRebased: (c) => `cannot replay the move ${c.from} -> ${c.to}: the other side moved or deleted the node or took the target path`,
};

export function describeConflict(conflict: Conflict): string {
  return `${conflict.type}: ${(describers[conflict.type] as (c: Conflict) => string)(conflict)}`;
}

function formatCoords(coords: number[][]): string {
  const shown = coords.slice(0, 8).map((c) => `[${c.join(',')}]`).join(' ');
  return coords.length > 8 ? `${shown} and ${coords.length - 8} more` : shown;
}
