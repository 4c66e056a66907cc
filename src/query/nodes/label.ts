// Label values a predicate compares against a coordinate array: numbers, bigints (int64
// coordinates), strings, and Dates or CfDates (for coordinates with CF-style time `units`).
import { floeError } from '../../errors.ts';
import type { CfDate } from '../../format/cf/cf-date.ts';

/**
 * A coordinate label a query compares with: a number, bigint, string, or for CF time coordinates
 * a Date (real-world calendars), a CfDate (any calendar, e.g. one a `decode: 'cf'` read returned)
 * or date text on the coordinate's calendar (`'2001-02-30'` on 360_day).
 */
export type LabelValue = number | bigint | string | Date | CfDate;

/** A CfDate, told apart structurally (its module loads only with CF decoding): frozen, so kept as is. */
export function isCfDateLabel(value: unknown): value is CfDate {
  return typeof value === 'object' && value !== null && !(value instanceof Date) && typeof (value as CfDate).calendar === 'string'
    && Number.isSafeInteger((value as CfDate).dayNumber) && Number.isSafeInteger((value as CfDate).microOfDay) && Object.isFrozen(value);
}

/** Validates one label and copies a Date, so a caller mutating theirs cannot change the node. */
export function freezeLabel(dim: string, value: unknown): LabelValue {
  if (typeof value === 'number') {
    if (Number.isNaN(value)) throw floeError('INVALID_ARGUMENT', `dimension "${dim}": NaN is not a label (it equals nothing)`);
    return value;
  }
  if (typeof value === 'bigint' || typeof value === 'string') return value;
  if (value instanceof Date) {
    if (Number.isNaN(value.getTime())) throw floeError('INVALID_ARGUMENT', `dimension "${dim}": invalid Date`);
    return new Date(value.getTime());
  }
  if (isCfDateLabel(value)) return value;
  throw floeError('INVALID_ARGUMENT', `dimension "${dim}": a label must be a number, bigint, string, Date or CfDate, got ${describeLabel(value)}`, {
    details: { dim, value: describeLabel(value) },
  });
}

/** A label as text for messages and explain output. */
export function describeLabel(value: unknown): string {
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? 'Invalid Date' : value.toISOString();
  if (isCfDateLabel(value)) return `${value.toString()} (${value.calendar})`;
  if (typeof value === 'bigint') return `${value}n`;
  if (typeof value === 'string') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(describeLabel).join(', ')}]`;
  if (value === undefined) return 'undefined';
  if (typeof value === 'number' || typeof value === 'boolean' || value === null) return String(value);
  return Object.prototype.toString.call(value);
}

/** Dimension references are names from `dimension_names`, or `#i` for the i-th (unnamed) one. */
export function checkDimName(dim: unknown): string {
  if (typeof dim !== 'string' || dim === '') {
    throw floeError('INVALID_ARGUMENT', `a dimension must be a non-empty name, got ${describeLabel(dim)}`);
  }
  return dim;
}
