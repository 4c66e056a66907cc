// Issue 29 on the local backends: concurrent writers commit to one repository on the filesystem
// and on SQLite, each through its own seeded fault wrapper (src/engine/storage/faults.ts): calls
// that fail before acting, calls that act and then fail (fail-after: the rename or row write took
// effect, the answer says it did not), and delays. The repo-info file gets its own, higher rates
// and no retries, so some commits' swaps end unknown. Afterwards the history checker holds every
// recorded answer against main's history (test/support/history-checker.ts).
//   FLOE_LOSSY_LOCAL_WRITERS (default 4) writers; FLOE_LOSSY_LOCAL_COMMITS (default 100) commits in
//   all per backend; FLOE_LOSSY_LOCAL_SEED (default: from the clock, printed) fixes the faults.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { withFaults, type Fault, type FaultPlan } from '../../src/engine/storage/faults.ts';
import { FsStorage } from '../../src/engine/storage/fs.ts';
import { withRetries } from '../../src/engine/storage/retries.ts';
import { SqliteStorage } from '../../src/engine/storage/sqlite.ts';
import { isTransientError } from '../../src/engine/storage/transient.ts';
import type { ObjectStorage } from '../../src/engine/storage/types.ts';
import { seededRandom } from '../../src/format/seeded-random.ts';
import { Repository, Storage } from '../../src/txn/index.ts';
import { checkHistory } from '../support/history-checker.ts';
import { branchHistory, floeLookup, floeReader } from '../support/history-checker-floe.ts';
import { cellCount, createCells, runCommits, toRecorded, type CommitLine } from '../support/lossy-writer.ts';

const WRITERS = Number(process.env.FLOE_LOSSY_LOCAL_WRITERS ?? 4);
const COMMITS = Number(process.env.FLOE_LOSSY_LOCAL_COMMITS ?? 100);
const SEED = Number(process.env.FLOE_LOSSY_LOCAL_SEED ?? Date.now() % 1_000_000);
const PER_WRITER = Math.ceil(COMMITS / WRITERS);
const CHUNK = 256; // 1 KiB chunks: stored in packs, not inline
const DEADLINE_MS = Math.max(120_000, COMMITS * 300); // per writer; long runs get longer

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

type FaultKind = Fault['kind'];
type Counts = Record<FaultKind, number>;

/**
 * Seeded faults: the repo-info file's reads and swaps fail before or after acting at `repoRate`
 * each; every other call fails before or after acting, or is delayed, at 2% each.
 */
function plan(seed: number, counts: Counts, repoRate = 0.12): FaultPlan {
  const random = seededRandom(seed);
  return (call) => {
    const draw = random();
    const ms = random();
    let fault: Fault | undefined;
    if (call.key === 'repo') fault = draw < repoRate ? { kind: 'fail-before' } : draw < 2 * repoRate && call.operation === 'put' ? { kind: 'fail-after' } : undefined;
    else fault = draw < 0.02 ? { kind: 'fail-before' } : draw < 0.04 ? { kind: 'fail-after' } : draw < 0.06 ? { kind: 'delay', ms: Math.round(ms * 4) } : undefined;
    if (fault) counts[fault.kind] += 1;
    return fault;
  };
}

/** A writer's view: its faults, then retries (none for the repo-info file: its failures reach the commit). */
function faulty(inner: ObjectStorage, seed: number, counts: Counts): Storage {
  const retried = withRetries(withFaults(inner, plan(seed, counts)), {
    maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 4, isRetryable: (err, call) => call.key !== 'repo' && isTransientError(err),
  });
  return Storage.fromObjectStorage(retried);
}

/** Opening reads the repo info, which may fail here: open again (a writer starts once it opened). */
async function openThroughFaults(storage: Storage): Promise<Repository> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await Repository.open(storage);
    } catch (err) {
      if (attempt === 20 || !isTransientError(err)) throw err;
    }
  }
}

const backends: { name: string; open: (dir: string) => ObjectStorage }[] = [
  { name: 'filesystem', open: (dir) => new FsStorage({ root: path.join(dir, 'repo') }) },
  { name: 'SQLite', open: (dir) => new SqliteStorage({ file: path.join(dir, 'repo.sqlite') }) },
];

describe('commits through lossy local backends (issue 29)', () => {
  for (const [i, backend] of backends.entries()) {
    it(`${backend.name}: ${WRITERS} writers, ${WRITERS * PER_WRITER} commits through fail-before/fail-after/delay faults: the history checker finds nothing`, async () => {
      const dir = mkdtempSync(path.join(tmpdir(), 'floe-lossy-'));
      dirs.push(dir);
      {
        const repo = await Repository.create(Storage.fromObjectStorage(backend.open(dir)));
        await createCells(repo, WRITERS, PER_WRITER, CHUNK);
        await repo.close();
      }
      const seed = SEED + 100 * i;
      const counts: Counts = { 'fail-before': 0, 'fail-after': 0, delay: 0 };
      const started = Date.now();
      const lines: CommitLine[] = [];
      await Promise.all(Array.from({ length: WRITERS }, async (_, writer) => {
        const repo = await openThroughFaults(faulty(backend.open(dir), seed + writer, counts));
        try {
          await runCommits(repo, { writer, writers: WRITERS, commits: PER_WRITER, chunk: CHUNK, run: `${backend.name}-${seed}`, deadlineMs: DEADLINE_MS }, (l) => lines.push(l));
        } finally {
          await repo.close();
        }
      }));
      const writeMs = Date.now() - started;

      const repo = await Repository.open(Storage.fromObjectStorage(backend.open(dir)));
      const history = await branchHistory(repo);
      const cells = Array.from({ length: cellCount(WRITERS, PER_WRITER) }, (_, c) => c);
      const report = await checkHistory({
        commits: lines.map(toRecorded), history, preexisting: new Set(history.slice(0, 2).map((s) => s.id)),
        initial: new Map(cells.map((c) => [c, 0])), cells, lookup: floeLookup(repo, history.length), read: floeReader(repo, CHUNK),
      });
      await repo.close();
      const answers = Object.fromEntries(['ok', 'conflict', 'unknown', 'error'].map((a) => [a, lines.filter((l) => l.answer === a).length]));
      const codes = [...new Set(lines.filter((l) => l.answer !== 'ok').map((l) => l.code))];
      const summary = `[lossy ${backend.name}] seed ${seed} (FLOE_LOSSY_LOCAL_SEED=${SEED}), faults ${JSON.stringify(counts)}; answers ${JSON.stringify(answers)} (codes ${codes.join(', ')}); unknown resolved ${JSON.stringify(report.unknown)}; ${history.length - 2} commits on main; ${writeMs} ms`;
      console.info(summary);
      expect(lines, summary).toHaveLength(WRITERS * PER_WRITER);
      expect(counts['fail-after'], summary).toBeGreaterThan(0);
      expect(report.violations, `${summary}\n${lines.filter((l) => l.answer !== 'ok').map((l) => JSON.stringify(l)).join('\n')}`).toEqual([]);
      for (const l of lines) if (l.answer !== 'ok') expect(['COMMIT_OUTCOME_UNKNOWN', 'STORAGE_ERROR', 'TIMEOUT'], `${l.key}: ${l.error}`).toContain(l.code);
    }, DEADLINE_MS + 60_000);
  }
});
