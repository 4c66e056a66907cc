// `floe import --distributed` (issue 32): the import's tasks, how they are planned and what a
// `floe worker` does with one. A task names a source Zarr v3 store (a directory every worker can
// read at that path), where its root goes in the repository, and the chunk objects (whole chunks,
// or whole shards: one object each) it copies verbatim. Every object is in exactly one task, so
// tasks own their chunks and their forks merge without overlap (docs/distributed.md).
import { floeError } from '../errors.ts';
import { mapLimit } from '../engine/storage/limiter.ts';
import { FsStorage } from '../engine/storage/fs.ts';
import type { Session } from '../txn/session.ts';

/** One task of a distributed import: copy `keys` of the store at `source` under `prefix`. */
export interface ImportTask {
  kind: 'floe-import';
  /** The source store's directory (absolute: workers resolve nothing against their own cwd). */
  source: string;
  /** Where the store's root goes in the repository, as a key prefix: `''` or `era5/`. */
  prefix: string;
  /** The chunk (or shard) objects of the source store this task copies. */
  keys: string[];
}

/** A source store's chunk objects, with their sizes, and where it goes. */
export interface ImportSource {
  source: string;
  prefix: string;
  chunks: readonly { key: string; size: number }[];
}

/** How big a task gets: at most `chunks` objects and, past its first object, at most `bytes`. */
export interface TaskLimits {
  chunks: number;
  bytes: number;
}

/**
 * Splits the sources' chunk objects into tasks, in source and key order (deterministic: a rerun
 * with the same sources plans the same tasks, so a write resumes). Each object is whole in one task.
 */
export function planImportTasks(sources: readonly ImportSource[], limits: TaskLimits): ImportTask[] {
  const tasks: ImportTask[] = [];
  for (const { source, prefix, chunks } of sources) {
    const sorted = [...chunks].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    let current: ImportTask | undefined;
    let bytes = 0;
    for (const { key, size } of sorted) {
      if (!current || current.keys.length >= limits.chunks || bytes + size > limits.bytes) {
        current = { kind: 'floe-import', source, prefix, keys: [] };
        tasks.push(current);
        bytes = 0;
      }
      current.keys.push(key);
      bytes += size;
    }
  }
  return tasks;
}

/** Whether a job's task is an import task (a queue may carry other writes' tasks). */
export function isImportTask(task: unknown): task is ImportTask {
  const t = task as Partial<ImportTask> | null;
  return typeof t === 'object' && t !== null && t.kind === 'floe-import' && typeof t.source === 'string' && t.source.startsWith('/')
    && typeof t.prefix === 'string' && Array.isArray(t.keys) && t.keys.every((k) => typeof k === 'string' && k !== '' && !k.split('/').includes('..'));
}

/** Objects a worker reads and writes at once within one task. */
const TASK_CONCURRENCY = 8;

/**
 * What `floe worker` does with a task: copies its objects from the source store into the fork,
 * bytes verbatim. Objects that are no chunk of an array (stray files) are skipped, as `floe import`
 * skips them; an object missing from the source fails the task (the source changed since the plan).
 */
export async function runImportTask(task: unknown, fork: Session, { signal }: { signal: AbortSignal }): Promise<void> {
  if (!isImportTask(task)) throw floeError('INVALID_ARGUMENT', 'this task is not a floe import task: `floe worker` runs the tasks of `floe import --distributed`; run a worker of your own (runWorker) for other writes', { details: { value: JSON.stringify(task)?.slice(0, 200) } });
  const src = new FsStorage({ root: task.source, durable: false });
  await mapLimit(task.keys, TASK_CONCURRENCY, async (key) => {
    const got = await src.get(key, undefined, { signal });
    if (!got) throw floeError('NOT_FOUND', `${key} is not in ${task.source} on this worker: the source store changed since the import was planned, or this machine sees another directory at that path`, { where: `${task.source}/${key}` });
    try {
      await fork.store.set(task.prefix + key, got.bytes, { signal });
    } catch (err) {
      if ((err as { code?: string }).code !== 'INVALID_KEY') throw err;
    }
  });
}
