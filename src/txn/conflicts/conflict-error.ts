// The error a rebase (or a merge of forks) throws when conflicts remain: a FloeError with code
// CONFLICT whose `conflicts` list each clash with its path, node and chunk coordinates.
import { FloeError } from '../../errors.ts';
import { describeConflict, type Conflict } from './conflict.ts';

export class ConflictError extends FloeError {
  readonly conflicts: readonly Conflict[];

  constructor(conflicts: readonly Conflict[], context: string) {
    const lines = conflicts.slice(0, 20).map((c) => `  - ${describeConflict(c)}`);
    if (conflicts.length > 20) lines.push(`  - and ${conflicts.length - 20} more`);
    super(
      'CONFLICT',
      `${context}: ${conflicts.length} conflict${conflicts.length === 1 ? '' : 's'}; resolve them with a solver ` +
        `(BasicConflictSolver, a callback) or start a new session\n${lines.join('\n')}`,
      { details: { kind: 'conflicts', conflicts } },
    );
    this.name = 'ConflictError';
    this.conflicts = conflicts;
  }
}

/** Narrows an error to a {@link ConflictError}. */
export function isConflictError(err: unknown): err is ConflictError {
  return err instanceof ConflictError;
}
