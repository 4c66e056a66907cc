// Reading the numeric parameters of numcodecs configurations (offset, scale, digits, keepbits).
import { invalidConfig, shown } from '../bytes-codec-support.ts';

/** A number (an exact-JSON bigint too); `fallback` when absent, else required. */
export function readNumber(codec: string, config: Record<string, unknown> | undefined, key: string, fallback?: number): number {
  const value = config?.[key];
  if (value === undefined || value === null) {
    if (fallback === undefined) throw invalidConfig(codec, `"${key}" is required`);
    return fallback;
  }
  if (typeof value === 'bigint') return Number(value);
  if (typeof value !== 'number' || Number.isNaN(value)) throw invalidConfig(codec, `"${key}" must be a number, got ${shown(value)}`);
  return value;
}
