// Progress of a distributed write as the coordinator reports it: phases, tasks done, bytes
// written, an estimate of the time left, and each task's timing as its worker measured it.
import type { TaskJobResult } from './job-data.ts';

/** One task's result and timing. */
export interface TaskTiming {
  task: number;
  /** The attempt's time in its worker (revive, handler, last pack, fork stored), ms. */
  ms: number;
  /** Chunk bytes the task's fork refers to. */
  bytes: number;
  /** The worker's name, when it has one. */
  worker: string | null;
}

/** What `onProgress` receives. */
export interface WriteProgress {
  writeId: string;
  /**
   * `planned` (the plan is stored), `enqueued` (a job per task is in the queue), `task-done` (one
   * more task's result arrived; `task` says which), `merged` (every fork merged), `committed`.
   */
  phase: 'planned' | 'enqueued' | 'task-done' | 'merged' | 'committed';
  tasksDone: number;
  tasksTotal: number;
  bytesWritten: number;
  /** Since this coordinator started, ms. */
  elapsedMs: number;
  /** Time left at this run's rate so far; null before a task finished in this run. */
  etaMs: number | null;
  task?: TaskTiming;
}

/** Counts tasks as their results arrive and works out the estimate. */
export class ProgressCounter {
  done = 0;
  bytes = 0;
  private doneHere = 0;
  private readonly started = performance.now();

  constructor(readonly writeId: string, readonly total: number) {}

  /** Records a result; `arrivedNow`: it finished during this run (not found finished at start). */
  record(result: TaskJobResult, arrivedNow: boolean): void {
    this.done++;
    this.bytes += result.bytes;
    if (arrivedNow) this.doneHere++;
  }

  report(phase: WriteProgress['phase'], task?: TaskTiming): WriteProgress {
    const elapsedMs = Math.round(performance.now() - this.started);
    const left = this.total - this.done;
    const etaMs = left === 0 ? 0 : this.doneHere === 0 ? null : Math.round((elapsedMs / this.doneHere) * left);
    return { writeId: this.writeId, phase, tasksDone: this.done, tasksTotal: this.total, bytesWritten: this.bytes, elapsedMs, etaMs, ...(task ? { task } : {}) };
  }
}
