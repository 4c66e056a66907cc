// Conflicts between a session and the commits made since it began: data, detection, solvers.
export { CONFLICT_TYPES, VersionSelection, describeConflict, type Conflict, type ConflictType } from './conflict.ts';
export { ConflictError, isConflictError } from './conflict-error.ts';
export { ConflictDetector, detectConflicts } from './detector.ts';
export { BasicConflictSolver, CallbackConflictSolver, settle, type BasicConflictSolverOptions, type ConflictCallback } from './basic-solver.ts';
export { applyChoice } from './resolve.ts';
export type { ConflictSolver, Resolution, SolveInput } from './solver.ts';
