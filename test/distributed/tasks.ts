// The writes of the distributed-write tests: array /a of int32, chunks of CHUNK elements; a task
// fills its chunks with its value. A committed write is checked chunk by chunk against its tasks.
import { ZarrArray } from '../../src/engine/array.ts';
import { slice } from '../../src/engine/selection.ts';
import type { Repository } from '../../src/txn/repository.ts';
import type { Session } from '../../src/txn/session.ts';

export const CHUNK = 4;
/** Added to a task's value by an attempt that stalled past its lock (its fork must not be merged). */
export const STALE_OFFSET = 1000;

export interface ChunkTask {
  chunks: number[];
  value: number;
}

/** Creates /a with `chunks` chunks on main; returns the commit's snapshot id. */
export async function createTarget(repo: Repository, chunks: number): Promise<string> {
  const session = await repo.writableSession('main');
  await ZarrArray.create(session.store, '/a', { shape: [chunks * CHUNK], chunkShape: [CHUNK], dataType: 'int32', fillValue: 0 });
  return session.commit('create /a');
}

/** `count` tasks of `perTask` chunks each, starting at chunk `first`, valued `base + i`. */
export function chunkTasks(count: number, perTask: number, first = 0, base = 1): ChunkTask[] {
  return Array.from({ length: count }, (_, i) => ({ chunks: Array.from({ length: perTask }, (_, k) => first + i * perTask + k), value: base + i }));
}

/** The values of /a on `branch`, one per chunk (the chunk's first element; every element must agree). */
export async function chunkValues(repo: Repository, branch = 'main'): Promise<number[]> {
  const session = await repo.readonlySession({ branch });
  const array = await ZarrArray.open(session.store, '/a');
  const data = (await array.get()).data as Int32Array;
  const out: number[] = [];
  for (let c = 0; c * CHUNK < data.length; c++) {
    const chunk = [...data.subarray(c * CHUNK, (c + 1) * CHUNK)];
    out.push(chunk.every((v) => v === chunk[0]) ? chunk[0]! : NaN);
  }
  return out;
}

/** What a test worker's handler does: fills the task's chunks of /a in `fork`, `taskMs` spread over them. */
export async function writeChunks(task: ChunkTask, fork: Session, taskMs = 0, value = task.value): Promise<void> {
  const array = await ZarrArray.open(fork.store, '/a');
  const step = taskMs / task.chunks.length;
  for (const c of task.chunks) {
    if (step > 0) await new Promise((r) => setTimeout(r, step));
    await array.set([slice(c * CHUNK, (c + 1) * CHUNK)], value);
  }
}
