// The query layer's public surface.
export { query, type QueryBuilder, type QueryOptions, type Explanation } from './builder.ts';
export { formatPlan } from './explain.ts';
export type { QuerySource, ReadSource, CacheUse, ManifestPlanner, ManifestUse, ChunkBox } from './source.ts';
export type { QueryResult, ArrayResult, CfResult, ExecutionReport, DataOf, DTypeName } from './result-types.ts';
export type { QueryPlan, DimPlan, CoordinatePlan, ArrayPlan, PlannedRequest, ShardIndexUse, PlanExpectation } from './plan/plan-types.ts';
export type { CacheHits } from './plan/planner.ts';
export type { CoalesceOptions } from './plan/coalesce.ts';
export type { QueryLimits } from './plan/plan-limits.ts';
export type { LabelValue } from './nodes/label.ts';
export type { WhereOp } from './nodes/where-node.ts';
export type { OperationNode, NodeKind } from './nodes/node-kind.ts';
export { ReadCaches, type ReadCacheOptions, type ReadCacheStats, type QueryCaches } from '../cache/read-caches.ts';
