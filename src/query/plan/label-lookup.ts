// Label predicates to index sets. A sorted coordinate (ascending or descending) is binary-searched:
// about 2·log2(n) comparisons per bound. An unsorted one is scanned: n comparisons per predicate
// (one pass for a whole `in` list), and the matches may be scattered. Each lookup reports its
// method and comparisons so explain() can show the cost.
import { floeError } from '../../errors.ts';
import { CfDate } from '../../format/cf/cf-date.ts';
import { decodeTime, encodeTime, parseDateText } from '../../format/cf/time.ts';
import { calendar } from '../../format/cf/calendar.ts';
import { describeLabel, isCfDateLabel, type LabelValue } from '../nodes/label.ts';
import type { NearestNode } from '../nodes/nearest-node.ts';
import type { WhereNode } from '../nodes/where-node.ts';
import { cfToDate, dateToCf } from './cf-time.ts';
import type { Coordinate } from './coordinate.ts';
import { compressIndices, type DimSet } from './dim-set.ts';

export interface Lookup {
  readonly set: DimSet;
  readonly method: 'binary-search' | 'scan';
  readonly comparisons: number;
}

interface Bound {
  readonly value: number | string;
  readonly inclusive: boolean;
}

interface Interval {
  readonly lo?: Bound;
  readonly hi?: Bound;
}

/** The label in the coordinate's own terms; a type mismatch names the dimension and value. */
export function toCoordinateValue(coord: Coordinate, label: LabelValue, exact = false): number | string {
  const mismatch = (why: string) =>
    floeError('INVALID_ARGUMENT', `type mismatch on dimension "${coord.dim}": ${describeLabel(label)} ${why}`, {
      where: coord.path, details: { dim: coord.dim, value: describeLabel(label), dtype: coord.dtype },
    });
  const strings = !(coord.values instanceof Float64Array);
  const cf = coord.cfTime;
  if (cf && (isCfDateLabel(label) || (typeof label === 'string' && !strings) || (label instanceof Date && !coord.time))) {
    // Any CF calendar: the label as a date of the coordinate's calendar, then its stored number.
    const realWorld = calendar(cf.calendar).realWorld;
    let date: CfDate;
    if (label instanceof Date) {
      throw mismatch(`is a Date, but the ${cf.calendar} calendar of ${coord.path} has no JS Dates: use date text such as "2001-02-30" or a CfDate`);
    } else if (typeof label === 'string') {
      const parsed = parseDateText(label, cf.calendar);
      if (typeof parsed === 'string') throw mismatch(`is not a date of the ${cf.calendar} calendar of ${coord.path} (${parsed})`);
      date = parsed;
    } else if (label.calendar === cf.calendar) {
      date = label as CfDate;
    } else if (realWorld && calendar(label.calendar).realWorld) {
      date = CfDate.fromDayNumber(cf.calendar, label.dayNumber, label.microOfDay); // the same instant
    } else {
      throw mismatch(`is a ${label.calendar} date, but ${coord.path} counts days of the ${cf.calendar} calendar`);
    }
    return encodeTime(cf, date);
  }
  if (isCfDateLabel(label)) throw mismatch(`is a CfDate but coordinate ${coord.path} (${coord.dtype}) has no CF time units like "days since 2000-01-01"`);
  if (label instanceof Date || (typeof label === 'string' && !strings && coord.time)) {
    if (!coord.time) throw mismatch(`is a Date but coordinate ${coord.path} (${coord.dtype}) has no CF time units like "days since 2000-01-01"`);
    const date = label instanceof Date ? label : new Date(label);
    if (Number.isNaN(date.getTime())) throw mismatch(`is not a date the time coordinate (${coord.time.units}) can compare with`);
    return dateToCf(coord.time, date);
  }
  if (typeof label === 'string') {
    if (!strings) throw mismatch(`is a string but coordinate ${coord.path} holds ${coord.dtype} numbers`);
    return label;
  }
  if (strings) throw mismatch(`is a number but coordinate ${coord.path} holds strings`);
  const n = Number(label);
  // A float32 coordinate stores 0.1 as 0.100000001…; equality against the rounded label matches
  // what the user wrote.
  return exact && (coord.dtype === 'float32' || coord.dtype === 'float16') ? Math.fround(n) : n;
}

export function lookupWhere(coord: Coordinate, node: WhereNode): Lookup {
  switch (node.op) {
    case 'in':
      return lookupIn(coord, node.value);
    case '=': {
      const v = toCoordinateValue(coord, node.value, true);
      const found = lookupInterval(coord, { lo: { value: v, inclusive: true }, hi: { value: v, inclusive: true } });
      if (found.set.length === 0) throw labelNotFound(coord, node.value, v);
      return found;
    }
    case 'between': {
      const [a, b] = node.value.map((x) => toCoordinateValue(coord, x)) as [number | string, number | string];
      const [lo, hi] = a <= b ? [a, b] : [b, a]; // either order: descending coordinates read naturally
      return lookupInterval(coord, { lo: { value: lo, inclusive: true }, hi: { value: hi, inclusive: true } });
    }
    case '<':
    case '<=':
      return lookupInterval(coord, { hi: { value: toCoordinateValue(coord, node.value), inclusive: node.op === '<=' } });
    case '>':
    case '>=':
      return lookupInterval(coord, { lo: { value: toCoordinateValue(coord, node.value), inclusive: node.op === '>=' } });
  }
}

function inside(v: number | string, iv: Interval): boolean {
  if (iv.lo && !(iv.lo.inclusive ? v >= iv.lo.value : v > iv.lo.value)) return false;
  if (iv.hi && !(iv.hi.inclusive ? v <= iv.hi.value : v < iv.hi.value)) return false;
  return true;
}

function lookupInterval(coord: Coordinate, iv: Interval): Lookup {
  const { values, order } = coord;
  const n = values.length;
  if (order === 'unsorted') {
    const hits: number[] = [];
    let i = 0;
    for (const v of values) {
      if (inside(v, iv)) hits.push(i);
      i++;
    }
    return { set: compressIndices(hits), method: 'scan', comparisons: n };
  }
  let comparisons = 0;
  const firstTrue = (pred: (v: number | string) => boolean): number => {
    let lo = 0;
    let hi = n;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      comparisons++;
      if (pred(labelAt(coord, mid))) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  };
  const { lo, hi } = iv;
  let a: number;
  let b: number;
  if (order === 'ascending') {
    a = lo ? firstTrue((v) => (lo.inclusive ? v >= lo.value : v > lo.value)) : 0;
    b = hi ? firstTrue((v) => (hi.inclusive ? v > hi.value : v >= hi.value)) : n;
  } else {
    a = hi ? firstTrue((v) => (hi.inclusive ? v <= hi.value : v < hi.value)) : 0;
    b = lo ? firstTrue((v) => (lo.inclusive ? v < lo.value : v <= lo.value)) : n;
  }
  return { set: b > a ? [{ start: a, step: 1, count: b - a }] : [], method: 'binary-search', comparisons };
}

function lookupIn(coord: Coordinate, labels: readonly LabelValue[]): Lookup {
  const wanted = labels.map((label) => ({ label, v: toCoordinateValue(coord, label, true) }));
  const hits: number[] = [];
  let comparisons = 0;
  let method: Lookup['method'] = 'binary-search';
  if (coord.order === 'unsorted') {
    // One pass for the whole list: a Set answers "is this label wanted" in O(1).
    const want = new Set<number | string>(wanted.map((w) => w.v));
    const seen = new Set<number | string>();
    coord.values.forEach((v, i) => {
      if (want.has(v)) (hits.push(i), seen.add(v));
    });
    comparisons = coord.values.length;
    method = 'scan';
    for (const { label, v } of wanted) if (!seen.has(v)) throw labelNotFound(coord, label, v);
  } else {
    for (const { label, v } of wanted) {
      const one = lookupInterval(coord, { lo: { value: v, inclusive: true }, hi: { value: v, inclusive: true } });
      comparisons += one.comparisons;
      const [r] = one.set; // one contiguous run of equal labels, or none
      if (r === undefined) throw labelNotFound(coord, label, v);
      for (let i = 0; i < r.count; i++) hits.push(r.start + i);
    }
  }
  return { set: compressIndices([...new Set(hits)].sort((x, y) => x - y)), method, comparisons };
}

/**
 * The index of the label closest to `v` (lower index on ties) and that label, or index -1 for an
 * empty coordinate.
 */
function nearestIndex(coord: Coordinate, v: number): { index: number; label: number; comparisons: number } {
  const values = coord.values as Float64Array;
  const n = values.length;
  let index = -1;
  let label = NaN;
  const consider = (i: number, x: number): void => {
    if (!Number.isNaN(x) && (index < 0 || Math.abs(x - v) < Math.abs(label - v))) (index = i), (label = x);
  };
  if (coord.order === 'unsorted') {
    for (const [i, x] of values.entries()) consider(i, x);
    return { index, label, comparisons: n };
  }
  const asc = coord.order === 'ascending';
  let lo = 0;
  let hi = n;
  let comparisons = 0;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    comparisons++;
    const x = values[mid];
    if (x === undefined) throw labelOutOfRange(coord, mid);
    if (asc ? x >= v : x <= v) hi = mid;
    else lo = mid + 1;
  }
  // The nearest label is at lo - 1 or lo; either may be past an end (then undefined).
  for (const i of [lo - 1, lo]) {
    const x = values[i];
    if (x !== undefined) consider(i, x);
  }
  return { index, label, comparisons };
}

export function lookupNearest(coord: Coordinate, node: NearestNode): Lookup {
  const v = toCoordinateValue(coord, node.value);
  if (typeof v === 'string') throw floeError('INVALID_ARGUMENT', `nearest on dimension "${coord.dim}" needs numeric or CF time labels; ${coord.path} holds strings`, { where: coord.path });
  const { index, label, comparisons } = nearestIndex(coord, v);
  const method = coord.order === 'unsorted' ? 'scan' : 'binary-search';
  if (index < 0) throw labelNotFound(coord, node.value, v);
  const distance = Math.abs(label - v);
  if (node.tolerance !== undefined && distance > node.tolerance) {
    throw floeError('NOT_FOUND', `no label of dimension "${coord.dim}" within ${node.tolerance} of ${describeLabel(node.value)}; the nearest is ${showLabel(coord, label)} at index ${index}`, {
      where: coord.path, details: { dim: coord.dim, value: describeLabel(node.value), nearestIndex: index },
    });
  }
  return { set: [{ start: index, step: 1, count: 1 }], method, comparisons };
}

/** A label by index; binary searches keep their probe inside [0, n), so this never throws. */
function labelAt(coord: Coordinate, i: number): number | string {
  const v = coord.values[i];
  if (v === undefined) throw labelOutOfRange(coord, i);
  return v;
}

/** Built only on a miss: labelAt runs at every probe of every binary search. */
function labelOutOfRange(coord: Coordinate, i: number): Error {
  return floeError('INVALID_ARGUMENT', `label index out of range in ${coord.path} (index ${i} of ${coord.values.length})`, {});
}

function showLabel(coord: Coordinate, v: number | string): string {
  if (typeof v === 'number' && coord.cfTime && !coord.time) return `${v} (${decodeTime(coord.cfTime, v)?.toString() ?? 'missing'} ${coord.cfTime.calendar})`;
  if (typeof v === 'number' && coord.time) return `${v} (${cfToDate(coord.time, v).toISOString()})`;
  return describeLabel(v);
}

function labelNotFound(coord: Coordinate, label: LabelValue, v: number | string): Error {
  const near = typeof v === 'number' ? nearestIndex(coord, v) : undefined;
  const hint = near && near.index >= 0 ? `; the nearest is ${showLabel(coord, near.label)} at index ${near.index} (use nearest() to accept it)` : '';
  return floeError('NOT_FOUND', `label ${describeLabel(label)} not found in dimension "${coord.dim}"${hint}`, {
    where: coord.path, details: { dim: coord.dim, value: describeLabel(label) },
  });
}
