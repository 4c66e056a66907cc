// Where a commit's cost per snapshot of history goes: each step of the repo-info update that
// touches the whole history, timed alone on a real repo info file of n snapshots and on one of
// (almost) none, the difference divided by n. Steps alternate inside every round and the minimum
// over rounds is kept — on a loaded machine the least disturbed run is the closest to the cost.
import type { ObjectStorage } from '../../src/engine/storage/types.ts';
import { encodeFile } from '../../src/format/icechunk/framing.ts';
import { appendSnapshot } from '../../src/format/icechunk/history-index.ts';
import { newSnapshotId } from '../../src/format/icechunk/ids.ts';
import { REPO_INFO_KEY } from '../../src/format/icechunk/keys.ts';
import { decodeRepoInfo, encodeRepoInfoPayload, REPO_INFO_ZSTD_LEVEL, type SnapshotInfo } from '../../src/format/icechunk/repo-info.ts';

export interface StepCost {
  step: string;
  /** CPU µs per snapshot of history (min over rounds, n snapshots minus the small file). */
  cpuPerSnapshot: number;
  /** Wall µs per snapshot, the same way. */
  wallPerSnapshot: number;
}

interface Steps {
  [step: string]: () => Promise<unknown> | unknown;
}

async function minCost(run: () => Promise<unknown> | unknown, reps: number): Promise<{ cpu: number; wall: number }> {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  for (let i = 0; i < reps; i++) await run();
  const wall = (performance.now() - t0) / reps;
  const c = process.cpuUsage(c0);
  return { cpu: (c.user + c.system) / 1000 / reps, wall };
}

/** The commit's whole-history steps on the repo info stored in `storage` (read, never changed). */
async function stepsOf(storage: ObjectStorage, scratch: ObjectStorage): Promise<Steps> {
  const got = await storage.get(REPO_INFO_KEY);
  if (!got) throw new Error('commit cost: no repo info');
  const info = decodeRepoInfo(got.bytes);
  const tip = info.branches[0]!.snapshotId;
  const added: SnapshotInfo = { id: newSnapshotId(), parentId: tip, flushedAt: Date.now() * 1000, message: 'c', metadata: [] };
  const next = { ...info, snapshots: appendSnapshot(info.snapshots, added) };
  const payload = encodeRepoInfoPayload(next);
  const file = encodeFile('repoInfo', info.specVersion, payload, { zstdLevel: REPO_INFO_ZSTD_LEVEL });
  let version = (await scratch.put('repo', file)).version;
  let backups = 0;
  return {
    'index: derive the next list': () => appendSnapshot(info.snapshots, added),
    'encode the payload (flatbuffers)': () => encodeRepoInfoPayload(next),
    'compress (zstd level 1) + header': () => encodeFile('repoInfo', info.specVersion, payload, { zstdLevel: REPO_INFO_ZSTD_LEVEL }),
    'store: backup (create) + replace (ifMatch)': async () => {
      await scratch.put(`overwritten/b${backups++}`, got.bytes, { ifNoneMatch: '*' });
      version = (await scratch.put('repo', file, { ifMatch: version })).version;
    },
  };
}

/** Per-snapshot cost of each step: `large` holds n snapshots, `small` a near-empty history. */
export async function commitCostBreakdown(large: ObjectStorage, small: ObjectStorage, n: number, scratch: () => ObjectStorage, rounds = 15): Promise<StepCost[]> {
  const big = await stepsOf(large, scratch());
  const little = await stepsOf(small, scratch());
  const best = new Map<string, { big: { cpu: number; wall: number }; little: { cpu: number; wall: number } }>();
  for (let round = 0; round < rounds; round++) {
    for (const step of Object.keys(big)) {
      const b = await minCost(big[step]!, 3);
      const l = await minCost(little[step]!, 3);
      if (round === 0) continue; // warm-up
      const kept = best.get(step);
      best.set(step, {
        big: { cpu: Math.min(kept?.big.cpu ?? Infinity, b.cpu), wall: Math.min(kept?.big.wall ?? Infinity, b.wall) },
        little: { cpu: Math.min(kept?.little.cpu ?? Infinity, l.cpu), wall: Math.min(kept?.little.wall ?? Infinity, l.wall) },
      });
    }
  }
  return [...best].map(([step, c]) => ({ step, cpuPerSnapshot: ((c.big.cpu - c.little.cpu) * 1000) / n, wallPerSnapshot: ((c.big.wall - c.little.wall) * 1000) / n }));
}
