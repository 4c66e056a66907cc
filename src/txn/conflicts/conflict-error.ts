// The error a rebase (or a merge of forks) throws when conflicts remain: a FloeError with code
// CONFLICT whose `conflicts` list each clash with its path, node and chunk coordinates. Its
// details are the CONFLICT kind 'conflicts', typed here with the full Conflict values (errors.ts
// is a leaf and knows only their type and path).
import { FloeError } from '../../errors.ts';
import { describeConflict, type Conflict } from './conflict.ts';

/** A CONFLICT that lists the clashes a rebase or fork merge could not settle. */
export class ConflictError extends FloeError<'CONFLICT'> {
  readonly conflicts: readonly Conflict[];
  // Narrows the inherited field (set by the base constructor below); `declare` emits nothing.
  declare readonly details: { readonly kind: 'conflicts'; readonly conflicts: readonly Conflict[] };

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
