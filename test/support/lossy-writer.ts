// One writer of the lossy-commit runs (issue 29), in a child process over S3 or in the test's own
// process over a faulty local backend. Commit m of writer w writes two chunks of `/d` with its
// tag (commitTag(w, m)): its own cell w*commits+m, and the shared last cell every commit writes,
// so rebases over other writers meet a chunk conflict (solved `useOurs`: the newest commit's tag
// must be there). It records what each call was told, with its commit key; it does not retry an
// unknown outcome, so the checker resolves it with lookupCommit.
import { ZarrArray } from '../../src/engine/array.ts';
import { slice } from '../../src/engine/selection.ts';
import { isFloeError } from '../../src/errors.ts';
import { BasicConflictSolver, type Repository } from '../../src/txn/index.ts';
import type { Answer, RecordedCommit } from './history-checker.ts';
import { ARRAY_PATH, cellValues, commitTag } from './history-checker-floe.ts';

export interface WriterJob {
  writer: number;
  writers: number;
  commits: number;
  /** int32 elements per chunk. */
  chunk: number;
  /** Makes the commit keys of this run unique. */
  run: string;
  deadlineMs: number;
}

/** One line of a writer's record (JSON between processes). */
export interface CommitLine {
  writer: number;
  m: number;
  key: string;
  answer: Answer;
  id?: string;
  code?: string;
  error?: string;
  writes: [number, number][];
}

export const cellCount = (writers: number, commits: number): number => writers * commits + 1;
export const sharedCell = (writers: number, commits: number): number => writers * commits;

/** Creates `/d`, one chunk per cell, all fill. */
export async function createCells(repo: Repository, writers: number, commits: number, chunk: number): Promise<void> {
  const session = await repo.writableSession('main');
  await ZarrArray.create(session.store, ARRAY_PATH, { shape: [cellCount(writers, commits) * chunk], chunkShape: [chunk], dataType: 'int32', fillValue: 0 });
  await session.commit('create /d');
}

export async function runCommits(repo: Repository, job: WriterJob, emit: (line: CommitLine) => void): Promise<void> {
  const deadline = Date.now() + job.deadlineMs;
  for (let m = 0; m < job.commits; m++) {
    if (Date.now() > deadline) throw new Error(`writer ${job.writer} ran past its deadline at commit ${m}`);
    const tag = commitTag(job.writer, m);
    const writes: [number, number][] = [[job.writer * job.commits + m, tag], [sharedCell(job.writers, job.commits), tag]];
    const key = `${job.run}-w${job.writer}-c${m}`;
    const line = { writer: job.writer, m, key, writes };
    try {
      const session = await repo.writableSession('main');
      const array = await ZarrArray.open(session.store, ARRAY_PATH);
      for (const [cell] of writes) await array.set([slice(cell * job.chunk, (cell + 1) * job.chunk)], cellValues(tag, job.chunk));
      const id = await session.commit(`writer ${job.writer} commit ${m}`, { commitKey: key, rebaseWith: new BasicConflictSolver(), rebaseTries: 200 });
      emit({ ...line, answer: 'ok', id });
    } catch (err) {
      const code = isFloeError(err) ? err.code : 'RAW';
      const answer: Answer = code === 'COMMIT_OUTCOME_UNKNOWN' ? 'unknown' : code === 'CONFLICT' ? 'conflict' : 'error';
      const id = isFloeError(err, 'COMMIT_OUTCOME_UNKNOWN') ? { id: err.details.snapshotId } : {};
      emit({ ...line, answer, ...id, code, error: String((err as Error).message ?? err).slice(0, 300) });
    }
  }
}

export function toRecorded(line: CommitLine): RecordedCommit {
  return {
    label: `writer ${line.writer} commit ${line.m}`, key: line.key, answer: line.answer, writes: new Map(line.writes),
    ...(line.id !== undefined ? { snapshotId: line.id } : {}), ...(line.code !== undefined ? { code: line.code } : {}),
  };
}
