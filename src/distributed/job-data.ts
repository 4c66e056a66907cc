// What travels through Redis: a task's job data (the write id, the task's position and value, the
// empty fork to revive) and its result (the storage key of the fork one attempt stored, with its
// size and timing): a few hundred bytes, however much the task wrote.
import type { JsonValue } from '../format/json.ts';
import type { ForkJSON } from '../txn/fork.ts';
import { isForkKeyOf, isWriteId } from './names.ts';

export interface TaskJobData {
  writeId: string;
  task: number;
  /** The empty fork on the write's base snapshot (the plan's). */
  fork: ForkJSON;
  payload: JsonValue;
}

export interface TaskJobResult {
  /** Storage key of the fork this attempt stored. */
  fork: string;
  /** Bytes of chunk data the fork references (native chunk lengths plus inline chunks). */
  bytes: number;
  /** The attempt's time in the worker: revive, handler, last pack, fork stored. */
  ms: number;
  /** The worker's name, when it has one. */
  worker: string | null;
}

/** Whether a job's data is a task of a distributed write (a queue may hold anything). */
export function isTaskJobData(data: Partial<TaskJobData> | null | undefined): data is TaskJobData {
  return typeof data === 'object' && data !== null && isWriteId(data.writeId)
    && Number.isSafeInteger(data.task) && data.task! >= 0 && typeof data.fork === 'object' && data.fork !== null && 'payload' in data;
}

/** Bytes of chunk data a fork refers to (virtual chunks not counted: nothing was written). */
export function forkBytes(fork: ForkJSON): number {
  let bytes = 0;
  for (const { changes } of fork.changes.chunks) {
    for (const [, ref] of changes) {
      if (ref?.kind === 'native') bytes += ref.length;
      else if (ref?.kind === 'inline') bytes += Buffer.byteLength(ref.data, 'base64');
    }
  }
  return bytes;
}

/** A job's return value, if it is a result of this write's task; undefined for anything else. */
export function taskResultOf(value: unknown, writeId: string, task: number): TaskJobResult | undefined {
  const r = value as Partial<TaskJobResult> | null;
  if (typeof r !== 'object' || r === null || !isForkKeyOf(r.fork, writeId, task)) return undefined;
  const count = (n: unknown) => (typeof n === 'number' && Number.isFinite(n) && n >= 0 ? n : 0);
  return { fork: r.fork, bytes: count(r.bytes), ms: count(r.ms), worker: typeof r.worker === 'string' ? r.worker.slice(0, 200) : null };
}
