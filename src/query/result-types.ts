// What execute() returns: data typed by the array's dtype, per selected array, and a report of
// what was actually fetched, shaped like the plan's expectations so the two compare directly.
import type { CfDate } from '../format/cf/cf-date.ts';
import type { CfVariable } from '../format/cf/variable.ts';
import type { ArrayData, TypedArray } from '../format/zarr/data-types.ts';
import type { FetchCount, FetchCounts } from './metered-store.ts';
import type { CacheHits } from './plan/planner.ts';
import type { QueryPlan } from './plan/plan-types.ts';

/** The typed array each Zarr data type reads into (see src/format/zarr/data-types.ts). */
export interface DataTypeMap {
  bool: Uint8Array;
  int8: Int8Array;
  int16: Int16Array;
  int32: Int32Array;
  int64: BigInt64Array;
  uint8: Uint8Array;
  uint16: Uint16Array;
  uint32: Uint32Array;
  uint64: BigUint64Array;
  float16: Float32Array;
  float32: Float32Array;
  float64: Float64Array;
  complex64: Float32Array;
  complex128: Float64Array;
  string: string[];
  large_string: string[];
  /** Typed arrays of the element dtype for vlen-array arrays (`elementDtype` names it). */
  binary: Uint8Array[] | TypedArray[];
  large_binary: Uint8Array[];
}

/** A Zarr data type name a query result can be typed by. */
export type DTypeName = keyof DataTypeMap;

/** The data a query over a `D` array returns; any data type when D is not known statically. */
export type DataOf<D extends string> = D extends DTypeName ? DataTypeMap[D] : ArrayData;

/** The selected values of one array, in C order, with a dimension per array dimension. */
export interface ArrayResult<D extends ArrayData = ArrayData> {
  readonly path: string;
  readonly dtype: string;
  /**
   * A `binary` array read through numcodecs' vlen-array: the data type of each element (its
   * typed array's), e.g. "int32"; `data` then holds one typed array per element.
   */
  readonly elementDtype?: string;
  readonly dims: readonly string[];
  /** C order; one entry per dimension (none is dropped, `=` leaves a length-1 dimension). */
  readonly shape: readonly number[];
  readonly data: D;
  /**
   * Present when the query decoded CF (`decode: 'cf'`, docs/cf.md) and the array has something
   * to decode (packing, missing values, `_Unsigned`, time, duration units, flags): then `dtype`
   * and `data` are the decoded ones and this says what was stored and how it decoded.
   */
  readonly cf?: CfResult;
}

/** How one array of a `decode: 'cf'` query decoded. */
export interface CfResult {
  /** The stored data type (the result's `dtype` is the decoded one). */
  readonly storedDtype: string;
  /** The array's decoding: value coding, time units and calendar, flags, structured metadata, warnings. */
  readonly variable: CfVariable;
  /** The stored values, in the result's order, when the query asked for them (`keepStored`). */
  readonly stored?: ArrayData;
  /** A time variable's values as dates on its calendar (`null` where missing); `data` holds the numbers they decode from. */
  readonly dates?: readonly (CfDate | null)[];
}

/** What executing a query cost: requests and bytes by purpose, cache hits and elapsed time. */
export interface ExecutionReport {
  /** Every request of the query, planning included, by purpose. */
  readonly fetched: FetchCounts;
  readonly total: FetchCount;
  readonly cacheHits: CacheHits;
  readonly elapsedMs: number;
}

/**
 * The result of {@link QueryBuilder.execute}: the `from` array's values (with their type when the
 * dtype was named), every array read, the plan, and the execution report.
 */
export interface QueryResult<D extends string = string> extends ArrayResult<DataOf<D>> {
  /** Every array read, the `from` array first, by path. */
  readonly arrays: Readonly<Record<string, ArrayResult>>;
  readonly plan: QueryPlan;
  readonly report: ExecutionReport;
}
