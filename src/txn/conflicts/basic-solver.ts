// Solvers that settle conflicts by choosing a side. `BasicConflictSolver` decides by conflict
// kind, with the reference's option names and defaults (chunks: ours; deleting something the
// other side changed: our delete wins; everything else fails) plus Floe's per-kind overrides.
// `CallbackConflictSolver` asks a function about each conflict. Either fails, listing the
// conflicts it could not settle, if any choice is `fail` or has no meaning for its kind.
import { floeError } from '../../errors.ts';
import type { ChangeSet } from '../change-set.ts';
import type { Conflict, ConflictType, VersionSelection } from './conflict.ts';
import { detectConflicts } from './detector.ts';
import { applyChoice } from './resolve.ts';
import type { ConflictSolver, Resolution, SolveInput } from './solver.ts';

/** Options of {@link BasicConflictSolver}: which side wins, per conflict kind. */
export interface BasicConflictSolverOptions {
  /** Both sides wrote the same chunk. Default `useOurs`. */
  onChunkConflict?: VersionSelection;
  /** Both sides changed a node's zarr.json (attributes, shape, ...). Default `fail`, as the reference. */
  onUserAttributesConflict?: VersionSelection;
  /** We delete an array they changed. Default false: our delete wins. */
  failOnDeleteOfUpdatedArray?: boolean;
  /** We delete a group they changed or created nodes in. Default false: our delete wins. */
  failOnDeleteOfUpdatedGroup?: boolean;
  /** A choice for any kind, overriding the options above. Kinds not named fail. */
  on?: Partial<Record<ConflictType, VersionSelection>>;
}

const SELECTIONS: readonly VersionSelection[] = ['useOurs', 'useTheirs', 'fail'];

/**
 * Settles conflicts by kind, with the reference's option names and defaults (chunks: ours; deleting
 * what the other side changed: our delete wins; anything else fails). Fails with a
 * {@link ConflictError} listing what it could not settle.
 */
export class BasicConflictSolver implements ConflictSolver {
  private readonly choices: Partial<Record<ConflictType, VersionSelection>>;

  constructor(options: BasicConflictSolverOptions = {}) {
    for (const [name, value] of Object.entries({ onChunkConflict: options.onChunkConflict, onUserAttributesConflict: options.onUserAttributesConflict, ...options.on })) {
      if (value !== undefined && !SELECTIONS.includes(value)) {
        throw floeError('INVALID_ARGUMENT', `BasicConflictSolver: ${name} must be one of ${SELECTIONS.join(', ')}, got ${JSON.stringify(value)}`);
      }
    }
    this.choices = {
      ChunkDoubleUpdate: options.onChunkConflict ?? 'useOurs',
      ZarrMetadataDoubleUpdate: options.onUserAttributesConflict ?? 'fail',
      DeleteOfUpdatedArray: options.failOnDeleteOfUpdatedArray ? 'fail' : 'useOurs',
      DeleteOfUpdatedGroup: options.failOnDeleteOfUpdatedGroup ? 'fail' : 'useOurs',
      ...options.on,
    };
  }

  async solve(input: SolveInput): Promise<Resolution> {
    return settle(input, (c) => this.choices[c.type] ?? 'fail');
  }
}

/** Decides one conflict; may be async (e.g. ask a user). */
export type ConflictCallback = (conflict: Conflict) => VersionSelection | Promise<VersionSelection>;

/** Settles each conflict by asking a callback which side wins (`useOurs`, `useTheirs` or `fail`). */
export class CallbackConflictSolver implements ConflictSolver {
  constructor(private readonly decide: ConflictCallback) {}

  async solve(input: SolveInput): Promise<Resolution> {
    return settle(input, this.decide);
  }
}

/** Detects, asks `choose` about each conflict, and patches a clone of our changes. */
export async function settle(input: SolveInput, choose: ConflictCallback): Promise<Resolution> {
  const conflicts = detectConflicts(input);
  if (conflicts.length === 0) return { kind: 'patched', changes: input.ours };
  const changes: ChangeSet = input.ours.clone();
  const failed: Conflict[] = [];
  for (const conflict of conflicts) {
    if (!applyChoice(changes, conflict, await choose(conflict), input.theirs)) failed.push(conflict);
  }
  return failed.length > 0 ? { kind: 'unsolvable', conflicts: failed } : { kind: 'patched', changes };
}
