// The history checker's view of a Floe repository: a 1-d int32 array `/d` of `cells` chunks of
// `chunk` elements; a commit writes whole chunks, each filled from a tag (a number unique to the
// commit), so a read tells which commit's value a chunk holds, and a garbled chunk reads as -1.
import { ZarrArray } from '../../src/engine/array.ts';
import { slice } from '../../src/engine/selection.ts';
import type { Repository } from '../../src/txn/index.ts';
import type { CheckInput, HistorySnapshot } from './history-checker.ts';

export const ARRAY_PATH = '/d';
const SPREAD = 1024; // elements per chunk at most

/** A chunk holding `tag`: element i is tag*1024+i; tag 0 is the fill value (zeros). */
export function cellValues(tag: number, chunk: number): Int32Array {
  if (chunk > SPREAD) throw new Error(`chunks of at most ${SPREAD} elements`);
  return tag === 0 ? new Int32Array(chunk) : Int32Array.from({ length: chunk }, (_, i) => tag * SPREAD + i);
}

/** The tag a chunk holds; -1 when it holds no tag's values. */
export function cellTag(data: Int32Array): number {
  if (data.every((v) => v === 0)) return 0;
  const tag = Math.floor(data[0]! / SPREAD);
  return data.every((v, i) => v === tag * SPREAD + i) ? tag : -1;
}

/** A tag unique to commit `m` of `writer`. */
export const commitTag = (writer: number, m: number): number => (writer + 1) * 10_000 + m + 1;

/** The branch's history, oldest first, with each snapshot's commit key. */
export async function branchHistory(repo: Repository, branch = 'main'): Promise<HistorySnapshot[]> {
  const out: HistorySnapshot[] = [];
  for await (const s of repo.ancestry({ branch })) {
    const key = s.metadata.floe_commit_key;
    out.push(typeof key === 'string' ? { id: s.id, key } : { id: s.id });
  }
  return out.reverse();
}

/** Reads the chosen chunks of `/d` in a snapshot (every manifest and chunk on the way must read). */
export function floeReader(repo: Repository, chunk: number): CheckInput['read'] {
  return async (snapshotId, cells) => {
    const session = await repo.readonlySession({ snapshotId });
    const array = await ZarrArray.open(session.store, ARRAY_PATH);
    const out = new Map<number, number>();
    for (const cell of cells) {
      const data = (await array.get([slice(cell * chunk, (cell + 1) * chunk)])).data as Int32Array;
      out.set(cell, cellTag(data));
    }
    return out;
  };
}

/**
 * `lookupCommit` over `horizon` snapshots: a checker resolving long after the run passes the
 * history's length (a caller resolves soon after the unknown answer, within the default 1000).
 */
export function floeLookup(repo: Repository, horizon?: number, branch = 'main'): CheckInput['lookup'] {
  return (key) => repo.lookupCommit(key, { branch, ...(horizon !== undefined ? { horizon } : {}) });
}
