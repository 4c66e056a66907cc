// Waiting for a write's task results. The queue's state is the truth: each round looks up the jobs
// whose completion BullMQ announced (QueueEvents) plus a rotating slice of the others, so a lost
// event (Redis restarted, the coordinator restarted) delays a result but never loses it. A job
// that is missing (Redis lost it) or left from an earlier write with this id (another base
// snapshot) is enqueued again; a job that failed for good ends the write with TASK_FAILED, except
// that a coordinator retries once the failed jobs it finds when it starts (a rerun of a failed write).
import { floeError } from '../errors.ts';
import { abortable, throwIfAborted } from '../engine/abort.ts';
import { mapLimit } from '../engine/storage/limiter.ts';
import type { BullMQ, BullQueue, BullQueueEvents } from './load-bullmq.ts';
import { taskResultOf, type TaskJobData, type TaskJobResult } from './job-data.ts';
import { jobIdOf } from './names.ts';
import type { WritePlan } from './plan.ts';


export interface WaitInput {
  bull: BullMQ;
  queue: BullQueue;
  events: BullQueueEvents;
  plan: WritePlan;
  /** Enqueues (again) the job of one task; a job with its id already there is left as it is. */
  enqueue(tasks: readonly number[]): Promise<void>;
  /** Called with each result as it is found; `arrivedNow` false for results there when the run started. */
  onResult(task: number, result: TaskJobResult, arrivedNow: boolean): void;
  pollIntervalMs: number;
  signal: AbortSignal | undefined;
}

/** Jobs looked up per round besides those announced. */
const SLICE = 256;

export async function waitForResults(input: WaitInput): Promise<TaskJobResult[]> {
  const { bull, queue, events, plan, signal } = input;
  const { writeId } = plan;
  const total = plan.tasks.length;
  const results: (TaskJobResult | undefined)[] = new Array(total);
  const pending = new Set<number>(Array.from({ length: total }, (_, i) => i));
  const seen = new Set<number>();
  const announced = new Set<number>();
  let wake: (() => void) | undefined;
  const prefix = `${writeId}-`;
  const onEvent = ({ jobId }: { jobId: string }) => {
    if (!jobId.startsWith(prefix)) return;
    const task = Number(jobId.slice(prefix.length));
    if (pending.has(task)) {
      announced.add(task);
      wake?.();
    }
  };
  events.on('completed', onEvent);
  events.on('failed', onEvent);
  let cursor = 0;
  let firstRound = true;
  try {
    while (pending.size > 0) {
      throwIfAborted(signal, writeId);
      const batch = new Set<number>([...announced].filter((t) => pending.has(t)));
      announced.clear();
      const order = [...pending];
      for (let k = 0; k < Math.min(SLICE, order.length); k++) batch.add(order[(cursor + k) % order.length]!);
      cursor += SLICE;
      const arrivedNow = !firstRound;
      await mapLimit([...batch], 16, async (task) => {
        const result = await abortable(check(task), signal, writeId);
        if (result) {
          results[task] = result;
          pending.delete(task);
          input.onResult(task, result, arrivedNow);
        }
      });
      firstRound = false;
      if (pending.size === 0) break;
      if (announced.size > 0) continue; // announced while this round ran
      await abortable(new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, input.pollIntervalMs);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      }), signal, writeId);
      wake = undefined;
    }
  } finally {
    events.off('completed', onEvent);
    events.off('failed', onEvent);
  }
  return results as TaskJobResult[];

  async function check(task: number): Promise<TaskJobResult | undefined> {
    const jobId = jobIdOf(writeId, task);
    const job = await bull.Job.fromId<TaskJobData>(queue, jobId);
    const first = !seen.has(task);
    seen.add(task);
    if (!job) {
      await input.enqueue([task]);
      return undefined;
    }
    if (job.data?.writeId !== writeId || job.data.fork?.snapshotId !== plan.baseSnapshotId) {
      // Left by an earlier write with this id (cancelled, then started afresh on another base).
      await job.remove().catch(() => undefined);
      await input.enqueue([task]);
      return undefined;
    }
    const state = await job.getState();
    if (state !== 'completed' && state !== 'failed') return undefined;
    // Read again: the job may have finished between the read above and getState (its returnvalue
    // or failedReason was then still empty).
    const done = (await bull.Job.fromId<TaskJobData>(queue, jobId)) ?? job;
    if (state === 'completed') {
      const result = taskResultOf(done.returnvalue, writeId, task);
      if (result) return result;
      // A result that names no fork of this task: run it again. Another coordinator of this write
      // (a restart while the first still runs) may have retried it first: seen at the next poll.
      await done.retry('completed').catch(() => undefined);
      return undefined;
    }
    if (first) {
      await done.retry('failed').catch(() => undefined); // or another coordinator of this write did first
      return undefined;
    }
    const reason = done.failedReason ?? 'unknown';
    throw floeError('TASK_FAILED', `task ${task} of distributed write ${writeId} failed after ${done.attemptsMade} attempts: ${reason}; the branch is unchanged (fix the cause, then run the write again with writeId ${JSON.stringify(writeId)} to retry it)`, {
      where: jobId,
      details: { writeId, task, jobId, reason },
    });
  }
}
