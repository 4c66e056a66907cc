// Repository maintenance: snapshot expiry, garbage collection, squash and the ops log.
export { expireSnapshots, planExpiry, type ExpireOptions, type ExpireResult } from './expire.ts';
export { GarbageCollection, GC_KINDS, GC_MINIMUM_GRACE_MS, type GcBudget, type GcCursor, type GcKind, type GcOptions, type GcStepResult, type GcSummary, type KindTotals } from './gc.ts';
export { squash } from './squash.ts';
export { opsLog, type OpsLogItem, type PublicUpdate } from './ops-log.ts';
export { verifyRepository, type OutOfGridRef, type VerifyOptions, type VerifyReport } from './verify.ts';
