// The history checker of issue 29: given what every commit call was told (ok / conflict / unknown
// / error, with its commit key and what it wrote) and the branch's history read afterwards, it
// lists every way the two disagree. The rules:
//   - no commit key is in the history twice (a retry committed the same change again);
//   - every commit answered ok is in the history, once, at the snapshot id it was given;
//   - no commit answered conflict or error (a definite failure) is in the history;
//   - every unknown one is resolved by `lookup`, and the lookup agrees with the history;
//   - every snapshot in the history was made by a recorded commit (or is one of `preexisting`);
//   - every snapshot reads back, and each cell holds the value of the newest commit at or before
//     that snapshot that wrote it: the cells its own commit wrote are read at every snapshot, every
//     cell at the tip (and at every snapshot with `readEverything`), so every manifest and chunk
//     reachable from the branch is read at least once.
// It knows nothing of Floe: the caller adapts reads (test/support/history-checker-floe.ts).

export type Answer = 'ok' | 'conflict' | 'unknown' | 'error';

export interface RecordedCommit {
  /** Who made the call, for messages: `writer 2 commit 7`. */
  label: string;
  key: string;
  answer: Answer;
  /** ok: the snapshot id returned; unknown: the id the error named. */
  snapshotId?: string;
  /** What the commit wrote: cell -> value. */
  writes: ReadonlyMap<number, number>;
  /** conflict / error / unknown: the error's code, for messages. */
  code?: string;
}

export interface HistorySnapshot {
  id: string;
  /** The commit key in its metadata, if any. */
  key?: string;
}

export interface CheckInput {
  commits: readonly RecordedCommit[];
  /** The branch's history, oldest first. */
  history: readonly HistorySnapshot[];
  /** Snapshots made before the recorded run (the initial one, the setup): no key needed. */
  preexisting: ReadonlySet<string>;
  /** Cells and their values before the first recorded commit. */
  initial: ReadonlyMap<number, number>;
  /** Every cell there is (to read at the tip). */
  cells: readonly number[];
  /** The repository's answer for an unknown commit's key. */
  lookup(key: string): Promise<{ committed: true; snapshotId: string } | { committed: false }>;
  /** The values of `cells` in a snapshot; throws when something does not read back. */
  read(snapshotId: string, cells: readonly number[]): Promise<ReadonlyMap<number, number>>;
  /** Read every cell of every snapshot, not only the tip's (small histories). */
  readEverything?: boolean;
  /** Snapshots read at once. Default 8. */
  readConcurrency?: number;
}

export interface CheckReport {
  violations: string[];
  /** How the unknown outcomes were resolved. */
  unknown: { committed: number; notCommitted: number; unresolved: number };
  snapshotsRead: number;
  cellsRead: number;
}

export async function checkHistory(input: CheckInput): Promise<CheckReport> {
  const violations: string[] = [];
  const positions = keyPositions(input.history, violations);
  checkAnswers(input, positions, violations);
  const unknown = await resolveUnknowns(input, positions, violations);
  checkProvenance(input, violations);
  const reads = await checkValues(input, violations);
  return { violations, unknown, ...reads };
}

function keyPositions(history: readonly HistorySnapshot[], violations: string[]): Map<string, number[]> {
  const positions = new Map<string, number[]>();
  for (const [at, s] of history.entries()) {
    if (s.key === undefined) continue;
    positions.set(s.key, [...(positions.get(s.key) ?? []), at]);
  }
  for (const [key, at] of positions) {
    if (at.length > 1) violations.push(`duplicate: key ${key} is in the history ${at.length} times (${at.map((p) => history[p]!.id).join(', ')})`);
  }
  return positions;
}

function checkAnswers(input: CheckInput, positions: Map<string, number[]>, violations: string[]): void {
  const seen = new Set<string>();
  for (const c of input.commits) {
    if (seen.has(c.key)) violations.push(`reused key: ${c.label} used key ${c.key} of an earlier call`);
    seen.add(c.key);
    const at = positions.get(c.key) ?? [];
    if (c.answer === 'ok') {
      if (at.length === 0) violations.push(`lost: ${c.label} was acknowledged as ${c.snapshotId} but key ${c.key} is not in the history`);
      else if (at.length === 1 && input.history[at[0]!]!.id !== c.snapshotId) {
        violations.push(`wrong id: ${c.label} was acknowledged as ${c.snapshotId}, the history has ${input.history[at[0]!]!.id}`);
      }
    } else if ((c.answer === 'conflict' || c.answer === 'error') && at.length > 0) {
      violations.push(`failed but landed: ${c.label} was answered ${c.answer} (${c.code ?? '?'}) yet is in the history as ${input.history[at[0]!]!.id}`);
    }
  }
}

async function resolveUnknowns(input: CheckInput, positions: Map<string, number[]>, violations: string[]): Promise<CheckReport['unknown']> {
  const counts = { committed: 0, notCommitted: 0, unresolved: 0 };
  for (const c of input.commits.filter((c) => c.answer === 'unknown')) {
    let found: Awaited<ReturnType<CheckInput['lookup']>>;
    try {
      found = await input.lookup(c.key);
    } catch (err) {
      counts.unresolved++;
      violations.push(`unresolved: ${c.label}'s lookup failed: ${String(err)}`);
      continue;
    }
    const at = positions.get(c.key) ?? [];
    const inHistory = at.length > 0 ? input.history[at[0]!]!.id : undefined;
    if (found.committed) {
      counts.committed++;
      if (found.snapshotId !== inHistory) violations.push(`lookup disagrees: ${c.label} looked up as ${found.snapshotId}, the history has ${inHistory ?? 'none'}`);
    } else {
      counts.notCommitted++;
      if (inHistory) violations.push(`lookup disagrees: ${c.label} looked up as not committed, the history has it as ${inHistory}`);
    }
  }
  return counts;
}

function checkProvenance(input: CheckInput, violations: string[]): void {
  const keys = new Set(input.commits.map((c) => c.key));
  for (const s of input.history) {
    if (input.preexisting.has(s.id)) continue;
    if (s.key === undefined || !keys.has(s.key)) violations.push(`phantom: snapshot ${s.id} (key ${s.key ?? 'none'}) was made by no recorded commit`);
  }
}

async function checkValues(input: CheckInput, violations: string[]): Promise<{ snapshotsRead: number; cellsRead: number }> {
  const byKey = new Map(input.commits.map((c) => [c.key, c]));
  const expected = new Map(input.initial);
  const tasks: { at: number; label: string; cells: readonly number[]; want: Map<number, number | undefined> }[] = [];
  for (const [at, s] of input.history.entries()) {
    const commit = s.key === undefined ? undefined : byKey.get(s.key);
    for (const [cell, value] of commit?.writes ?? []) expected.set(cell, value);
    if (input.preexisting.has(s.id) && at < input.history.length - 1) continue;
    const everything = input.readEverything || at === input.history.length - 1;
    const cells = everything ? input.cells : [...(commit?.writes.keys() ?? [])];
    if (cells.length === 0) continue;
    tasks.push({ at, label: `snapshot ${s.id}${commit ? ` (${commit.label})` : ''}`, cells, want: new Map(cells.map((c) => [c, expected.get(c)])) });
  }
  const found: string[][] = tasks.map(() => []);
  let next = 0;
  let snapshotsRead = 0;
  let cellsRead = 0;
  // Reads in parallel (they are independent); findings keep history order.
  const worker = async () => {
    for (let t = next++; t < tasks.length; t = next++) {
      const task = tasks[t]!;
      let got: ReadonlyMap<number, number>;
      try {
        got = await input.read(input.history[task.at]!.id, task.cells);
      } catch (err) {
        found[t]!.push(`unreadable: ${task.label}: ${String(err)}`);
        continue;
      }
      snapshotsRead++;
      cellsRead += task.cells.length;
      for (const [cell, want] of task.want) {
        if (got.get(cell) !== want) found[t]!.push(`wrong value: ${task.label}, cell ${cell}: got ${got.get(cell)}, want ${want}`);
      }
    }
  };
  await Promise.all(Array.from({ length: input.readConcurrency ?? 8 }, worker));
  violations.push(...found.flat());
  return { snapshotsRead, cellsRead };
}
