// The query builder: `query(source).from(path).where(dim, op, value)...`. Each call returns a new
// builder around a new frozen QueryNode; a builder never changes, so one base query can branch
// into many. The dtype given to from() flows to execute()'s result type.
import type { ReadCaches } from '../cache/read-caches.ts';
import { floeError } from '../errors.ts';
import type { DecodePool } from '../engine/decode-pool.ts';
import { executePrepared } from './execute/executor.ts';
import { formatPlan } from './explain.ts';
import { FromNode } from './nodes/from-node.ts';
import { LimitNode } from './nodes/limit-node.ts';
import { NearestNode, type NearestOptions } from './nodes/nearest-node.ts';
import { nodeText } from './nodes/node-text.ts';
import { QueryNode, type DimOperationNode } from './nodes/query-node.ts';
import { SelectNode } from './nodes/select-node.ts';
import { StrideNode } from './nodes/stride-node.ts';
import { WhereIndexNode } from './nodes/where-index-node.ts';
import { WhereNode, type WhereOp, type WhereValue } from './nodes/where-node.ts';
import type { LabelValue } from './nodes/label.ts';
import type { CoalesceOptions } from './plan/coalesce.ts';
import type { QueryLimits } from './plan/plan-limits.ts';
import { planQuery, type PreparedQuery } from './plan/planner.ts';
import type { QueryPlan } from './plan/plan-types.ts';
import type { DTypeName, QueryResult } from './result-types.ts';
import { resolveSource, type QuerySource } from './source.ts';

/** Options of {@link query} (and of {@link createQueryServer}, which runs queries with them). */
export interface QueryOptions {
  /**
   * Caches shared between queries (see src/cache/read-caches.ts). Default: a session uses its
   * repository's, keyed by snapshot; a plain store uses none.
   */
  caches?: ReadCaches | undefined;
  /** Requests in flight at once. Default 8. */
  concurrency?: number | undefined;
  /** When near byte ranges of one object merge into one request. */
  coalesce?: CoalesceOptions | undefined;
  /** Worker pool for big compressed chunks; default false (decode inline). */
  decodePool?: DecodePool | false | undefined;
  /** Clock for the report's elapsed time, in ms; injectable for tests. Default `performance.now`. */
  now?: (() => number) | undefined;
  /**
   * Stops the query (explain or execute): requests in flight are cancelled, none starts after it
   * fires, and the query rejects with `ABORTED` (its reason as `cause`; `details.timedOut` for
   * `AbortSignal.timeout(ms)`).
   */
  signal?: AbortSignal | undefined;
  /**
   * What one query may touch (chunks, result bytes, coordinate labels), counted from metadata
   * before anything is enumerated; past one the query rejects with LIMIT_EXCEEDED. Defaults:
   * 1,000,000 chunks, 4 GiB, 10,000,000 labels.
   */
  limits?: QueryLimits | undefined;
  /**
   * 'cf' decodes each numeric array by its CF attributes (docs/cf.md): packed and missing values
   * become floats, `_Unsigned` integers their unsigned type, times also dates (`cf.dates`); the
   * result's `dtype`, and the dtype `from(path, dtype)` expects, are then the decoded type.
   * Default 'none': stored values.
   */
  decode?: 'none' | 'cf' | undefined;
  /** With `decode: 'cf'`: keep the stored values too, as `cf.stored` of each array. Default false. */
  keepStored?: boolean | undefined;
}

/** What {@link QueryBuilder.explain} returns: the plan, and its printout ({@link formatPlan}). */
export interface Explanation {
  readonly plan: QueryPlan;
  readonly text: string;
}

/**
 * An immutable query under construction, made by {@link query}: each call returns a new builder.
 * `D` is the `from` array's data type when named, which types the result's data.
 * @example
 * ```ts
 * const result = await query(session)
 *   .from('temperature', 'float32')
 *   .where('time', 'between', [t0, t1])
 *   .execute();
 * ```
 */
export interface QueryBuilder<D extends string = string> {
  /** The frozen operation tree this builder holds. */
  toOperationNode(): QueryNode;
  /** The array to read; naming its dtype types the result and is checked when planning. */
  from<T extends DTypeName>(path: string, dtype: T): QueryBuilder<T>;
  /** The array to read, of any data type. */
  from(path: string): QueryBuilder<string>;
  /** More arrays read with the same dimension selections (relative to the from array's group). */
  select(...paths: string[]): QueryBuilder<D>;
  /** A label predicate through the dimension's coordinate array; `between` is inclusive. */
  where<Op extends WhereOp>(dim: string, op: Op, value: WhereValue<Op>): QueryBuilder<D>;
  /** Positions start, start+step, ... below stop (negative bounds count from the end, null is open). */
  whereIndex(dim: string, start: number | null, stop: number | null, step?: number): QueryBuilder<D>;
  /** The single label closest to `value`, failing when farther than `tolerance`. */
  nearest(dim: string, value: LabelValue, options?: NearestOptions): QueryBuilder<D>;
  /** Keeps the first `count` selected indices of a dimension. */
  limit(dim: string, count: number): QueryBuilder<D>;
  /** Keeps every `step`-th selected index of a dimension. */
  stride(dim: string, step: number): QueryBuilder<D>;
  /** Plans without reading data: the plan and its printout. */
  explain(): Promise<Explanation>;
  /**
   * Plans and reads the data: the `from` array's values, every selected array, the plan and a
   * report of what was fetched. Rejects with a {@link FloeError} for a bad query or a missing array or label.
   */
  execute(): Promise<QueryResult<D>>;
  /** The query as builder calls. */
  toString(): string;
}

class QueryBuilderImpl<D extends string> implements QueryBuilder<D> {
  constructor(private readonly props: Readonly<{ source: QuerySource; options: QueryOptions; node: QueryNode }>) {}

  toOperationNode(): QueryNode {
    return this.props.node;
  }

  from(path: string, dtype?: string): QueryBuilder<never> {
    return new QueryBuilderImpl({ ...this.props, node: QueryNode.cloneWithFrom(this.props.node, FromNode.create(path, dtype)) });
  }

  select(...paths: string[]): QueryBuilder<D> {
    const current = this.props.node.select;
    const select = current ? SelectNode.cloneWithPaths(current, paths) : SelectNode.create(paths);
    return new QueryBuilderImpl({ ...this.props, node: QueryNode.cloneWithSelect(this.props.node, select) });
  }

  where<Op extends WhereOp>(dim: string, op: Op, value: WhereValue<Op>): QueryBuilder<D> {
    return this.with(WhereNode.create(dim, op, value));
  }

  whereIndex(dim: string, start: number | null, stop: number | null, step?: number): QueryBuilder<D> {
    return this.with(WhereIndexNode.create(dim, start, stop, step));
  }

  nearest(dim: string, value: LabelValue, options?: NearestOptions): QueryBuilder<D> {
    return this.with(NearestNode.create(dim, value, options));
  }

  limit(dim: string, count: number): QueryBuilder<D> {
    return this.with(LimitNode.create(dim, count));
  }

  stride(dim: string, step: number): QueryBuilder<D> {
    return this.with(StrideNode.create(dim, step));
  }

  async explain(): Promise<Explanation> {
    const { plan } = await this.prepare();
    return Object.freeze({ plan, text: formatPlan(plan) });
  }

  async execute(): Promise<QueryResult<D>> {
    const prepared = await this.prepare();
    const { arrays, report } = await executePrepared(prepared, this.props.options);
    // The primary array (from()) is always the first result; a plan without it is a planner bug.
    const [first] = arrays;
    if (first === undefined) throw floeError('INVALID_ARGUMENT', 'the query planned no array to read');
    // The from() overloads tie D to the array's dtype, which planning has checked.
    return { ...first, data: first.data as QueryResult<D>['data'], arrays: Object.fromEntries(arrays.map((a) => [a.path, a])), plan: prepared.plan, report };
  }

  toString(): string {
    return `query(...)${nodeText(this.props.node)}`;
  }

  private with(op: DimOperationNode): QueryBuilder<D> {
    return new QueryBuilderImpl({ ...this.props, node: QueryNode.cloneWithOperation(this.props.node, op) });
  }

  private prepare(): Promise<PreparedQuery> {
    const { source, options, node } = this.props;
    return planQuery(resolveSource(source, options.caches), node, options);
  }
}

/** Starts a query over a plain Zarr store or a ReadSource (a session, a StoreReader). */
export function query(source: QuerySource, options: QueryOptions = {}): QueryBuilder<string> {
  return new QueryBuilderImpl({ source, options: Object.freeze({ ...options }), node: QueryNode.create() });
}
