// The check behind Session.mergeDisjoint (issue 32): forks that must own their chunks, as the
// tasks of a distributed write do, are refused when two wrote the same chunk or zarr.json, where
// a plain merge would let the later one win silently. Loaded with the first such merge.
import { floeError } from '../errors.ts';
import { idToString } from '../format/icechunk/ids.ts';
import { ChangeSet, parseCoordsKey } from './change-set.ts';
import { NodeView } from './node-view.ts';
import type { LoadedSnapshot } from './objects.ts';

/** A fork to merge with the name its writer goes by (a distributed write's task: `task 3`). */
export interface OwnedChanges {
  owner: string;
  changes: ChangeSet;
}

/**
 * Refuses forks that wrote the same chunk or the same zarr.json: merged as they are, the later one
 * would win silently (mergeForkChanges). Forks that split their work on chunk boundaries pass.
 * A CONFLICT (`overlapping-forks`) names the two owners, the node's path and the chunk.
 */
export function assertDisjointForks(base: LoadedSnapshot, forks: readonly OwnedChanges[]): void {
  const chunkOwner = new Map<string, Map<string, string>>();
  const nodeOwner = new Map<string, string>();
  for (const { owner, changes } of forks) {
    for (const key of changes.updatedNodes.keys()) {
      const first = nodeOwner.get(key);
      if (first !== undefined && first !== owner) throw overlap(base, forks, key, null, [first, owner]);
      nodeOwner.set(key, owner);
    }
    for (const [key, map] of changes.chunks) {
      let owners = chunkOwner.get(key);
      if (!owners) chunkOwner.set(key, (owners = new Map()));
      for (const coords of map.keys()) {
        const first = owners.get(coords);
        if (first !== undefined && first !== owner) throw overlap(base, forks, key, parseCoordsKey(coords), [first, owner]);
        owners.set(coords, owner);
      }
    }
  }
}

function overlap(base: LoadedSnapshot, forks: readonly OwnedChanges[], nodeKey: string, chunk: number[] | null, owners: [string, string]) {
  // A node one fork created is found in that fork's changes; others in the base snapshot.
  const created = forks.map((f) => f.changes.newNodes.get(nodeKey)?.path).find((p) => p !== undefined);
  const path = created ?? new NodeView(base, new ChangeSet()).nodes().find((n) => idToString(n.id) === nodeKey)?.path ?? nodeKey;
  const what = chunk === null ? `the zarr.json of ${path}` : `chunk [${chunk.join(',')}] of ${path}`;
  return floeError('CONFLICT', `${owners[0]} and ${owners[1]} both wrote ${what}; a distributed write's tasks must own their chunks: split the work on chunk (or shard) boundaries`, {
    where: path,
    details: { kind: 'overlapping-forks', path, owners, chunk },
  });
}
