// Checks of arguments that come from callers the compiler cannot see (JavaScript, JSON, `as`
// casts): a wrong type becomes INVALID_ARGUMENT at the public boundary instead of a TypeError
// from deep inside ("x.split is not a function").
import { floeError } from '../errors.ts';

/** Any value as short text for a message; never throws (null-prototype objects, symbols, cycles). */
export function shownValue(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}…` : value);
  if (value === null || value === undefined || typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (typeof value === 'bigint') return `${value}n`;
  if (Array.isArray(value)) return `an array of ${value.length}`;
  return `a ${typeof value}`;
}

/** Throws INVALID_ARGUMENT unless `value` is a string. */
export function requireString(value: unknown, what: string, where?: string): asserts value is string {
  if (typeof value !== 'string') throw floeError('INVALID_ARGUMENT', `${what} must be a string, got ${shownValue(value)}`, { where });
}

/** Throws INVALID_ARGUMENT unless `value` is an array. */
export function requireArray(value: unknown, what: string, where?: string): asserts value is readonly unknown[] {
  if (!Array.isArray(value)) throw floeError('INVALID_ARGUMENT', `${what} must be an array, got ${shownValue(value)}`, { where });
}

/** Throws INVALID_ARGUMENT unless `value` is a non-null object (options bags). */
export function requireObject(value: unknown, what: string, where?: string): asserts value is object {
  if (typeof value !== 'object' || value === null) throw floeError('INVALID_ARGUMENT', `${what} must be an object, got ${shownValue(value)}`, { where });
}

/** Throws INVALID_ARGUMENT unless `value` is a Date holding a real time. */
export function requireDate(value: unknown, what: string): asserts value is Date {
  if (!(value instanceof Date) || !Number.isFinite(value.getTime())) {
    throw floeError('INVALID_ARGUMENT', `${what} must be a valid Date, got ${value instanceof Date ? 'an invalid Date' : shownValue(value)}`);
  }
}
