// The JSON form of a query, as POSTed to the query server: the builder's calls as data.
//   { "from": "/temperature", "dtype": "float32", "select": ["lat", "lon"],
//     "ops": [ { "where": ["time", "between", [{ "date": "2000-03-01" }, { "date": "2000-03-31T23:00Z" }]] },
//              { "whereIndex": ["lon", 0, 40, 2] }, { "nearest": ["lat", 45.1, { "tolerance": 0.25 }] },
//              { "stride": ["lat", 2] }, { "limit": ["lat", 10] } ] }
// Labels are JSON numbers and strings, `{ "date": iso }` for Dates and `{ "bigint": "123" }` for int64.
import { floeError, isFloeError } from '../errors.ts';
import { parseJson } from '../format/json.ts';
import type { QueryBuilder } from './builder.ts';
import { describeLabel, type LabelValue } from './nodes/label.ts';
import type { WhereOp } from './nodes/where-node.ts';

type OpName = 'where' | 'whereIndex' | 'nearest' | 'limit' | 'stride';

const bad = (message: string) => floeError('INVALID_ARGUMENT', `bad query JSON: ${message}`);

/** Most select paths and ops one query may list (a body far below the size limit could list ~10^5). */
export const MAX_QUERY_TERMS = 1024;

/**
 * Parses a query's JSON text with the format layer's depth-limited parser (format/json.ts, no
 * recursion past `maxDepth`, so no nesting can overflow the stack later: error messages print
 * values with JSON.stringify, which recurses). Numbers are doubles, as JSON.parse gives; malformed
 * or too deep JSON is INVALID_ARGUMENT (the query server answers 400).
 */
export function parseQueryJson(text: string, maxDepth: number): unknown {
  try {
    return parseJson(text, 'the query', { maxDepth, exactIntegers: false });
  } catch (err) {
    if (isFloeError(err, 'LIMIT_EXCEEDED') && err.details.kind === 'json-depth') {
      throw floeError('INVALID_ARGUMENT', `bad query JSON: nested deeper than ${maxDepth} levels; a query needs a few`, { cause: err });
    }
    if (isFloeError(err, 'INVALID_METADATA', 'LIMIT_EXCEEDED')) {
      throw floeError('INVALID_ARGUMENT', `the query is not valid JSON: ${err.message}`, { cause: err });
    }
    throw err;
  }
}

/** One handler per operation; the Record makes a builder method without a JSON form a type error. */
const OPS: Record<OpName, (q: QueryBuilder, args: unknown[]) => QueryBuilder> = {
  where: (q, [dim, op, value]) => q.where(str(dim, 'where dimension'), op as WhereOp, decodeValue(value) as never),
  whereIndex: (q, [dim, start, stop, step]) => q.whereIndex(str(dim, 'whereIndex dimension'), bound(start), bound(stop), step === undefined ? 1 : num(step, 'whereIndex step')),
  nearest: (q, [dim, value, options]) => q.nearest(str(dim, 'nearest dimension'), decodeLabel(value), nearestOptions(options)),
  limit: (q, [dim, n]) => q.limit(str(dim, 'limit dimension'), num(n, 'limit')),
  stride: (q, [dim, n]) => q.stride(str(dim, 'stride dimension'), num(n, 'stride')),
};

export function applyJsonQuery(base: QueryBuilder, json: unknown): QueryBuilder {
  if (!isObject(json)) throw bad('expected an object like {"from": "/array", "ops": [...]}');
  const known = new Set(['from', 'dtype', 'select', 'ops']);
  for (const k of Object.keys(json)) if (!known.has(k)) throw bad(`unknown field ${shown(k)}; fields are from, dtype, select, ops`);
  let q = json.dtype === undefined ? base.from(str(json.from, 'from')) : (base.from(str(json.from, 'from'), str(json.dtype, 'dtype') as never) as QueryBuilder);
  if (json.select !== undefined) {
    if (!Array.isArray(json.select)) throw bad('select must be a list of array paths');
    if (json.select.length > MAX_QUERY_TERMS) throw bad(`select lists ${json.select.length} paths, more than ${MAX_QUERY_TERMS}`);
    q = q.select(...json.select.map((p) => str(p, 'select path')));
  }
  const ops = json.ops ?? [];
  if (!Array.isArray(ops)) throw bad('ops must be a list like [{"where": ["lat", ">", 10]}]');
  if (ops.length > MAX_QUERY_TERMS) throw bad(`ops lists ${ops.length} operations, more than ${MAX_QUERY_TERMS}`);
  for (const op of ops) {
    const keys = isObject(op) ? Object.keys(op) : [];
    const name = keys[0] as OpName;
    if (keys.length !== 1 || !Object.hasOwn(OPS, name)) throw bad(`each op is one of {${Object.keys(OPS).join('|')}: [args]}, got ${shown(op)}`);
    const args = (op as Record<string, unknown>)[name];
    if (!Array.isArray(args)) throw bad(`${name} takes a list of arguments, got ${shown(args)}`);
    q = OPS[name](q, args);
  }
  return q;
}

function decodeLabel(v: unknown): LabelValue {
  if (typeof v === 'number' || typeof v === 'string') return v;
  if (isObject(v) && typeof v.date === 'string') {
    const d = new Date(v.date);
    if (Number.isNaN(d.getTime())) throw bad(`{"date": ${shown(v.date)}} is not a date`);
    return d;
  }
  if (isObject(v) && typeof v.bigint === 'string' && /^-?\d+$/.test(v.bigint)) return BigInt(v.bigint);
  throw bad(`a label is a number, a string, {"date": iso} or {"bigint": "digits"}, got ${shown(v)}`);
}

function decodeValue(v: unknown): LabelValue | LabelValue[] {
  return Array.isArray(v) ? v.map(decodeLabel) : decodeLabel(v);
}

function nearestOptions(v: unknown): { tolerance?: number } {
  if (v === undefined) return {};
  if (!isObject(v) || (v.tolerance !== undefined && typeof v.tolerance !== 'number')) throw bad(`nearest options are {"tolerance": number}, got ${shown(v)}`);
  return v.tolerance === undefined ? {} : { tolerance: v.tolerance };
}

/** A value for an error message, cut short: a body can hold a megabyte of it. */
function shown(v: unknown): string {
  const text = JSON.stringify(v) ?? String(v);
  return text.length > 120 ? `${text.slice(0, 120)}...` : text;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function str(v: unknown, what: string): string {
  if (typeof v !== 'string') throw bad(`${what} must be a string, got ${describeLabel(v)}`);
  return v;
}

function num(v: unknown, what: string): number {
  if (typeof v !== 'number') throw bad(`${what} must be a number, got ${describeLabel(v)}`);
  return v;
}

function bound(v: unknown): number | null {
  return v === null || v === undefined ? null : num(v, 'whereIndex bound');
}
