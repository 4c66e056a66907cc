// The solver contract. Rebase replays a session's change set over each commit made since the
// session began, oldest first; for each one a solver sees that commit (its transaction log and
// the snapshot it produced) and our changes, and returns either patched changes that apply
// cleanly on top of it or the conflicts it could not solve. Solvers never modify their input.
import type { TransactionLog } from '../../format/icechunk/transaction-log.ts';
import type { ChangeSet } from '../change-set.ts';
import type { LoadedSnapshot } from '../objects.ts';
import type { Conflict } from './conflict.ts';

export interface SolveInput {
  /** What the other side's commit touched. */
  theirLog: TransactionLog;
  /** The snapshot that commit produced: our changes will apply on top of it. */
  theirs: LoadedSnapshot;
  /** The snapshot our changes apply to now (the parent of `theirs`). */
  ourBase: LoadedSnapshot;
  /** Our changes. Read-only: a solver patches a clone. */
  ours: ChangeSet;
}

export type Resolution =
  | { kind: 'patched'; changes: ChangeSet }
  | { kind: 'unsolvable'; conflicts: Conflict[] };

/**
 * Decides how a session's changes go on top of a commit made on its branch since the session began
 * (rebase replays them over each such commit, oldest first). Solvers never modify their input.
 */
export interface ConflictSolver {
  /** Our changes patched to apply cleanly on top of that commit, or the conflicts it could not solve. */
  solve(input: SolveInput): Promise<Resolution>;
}
