// Shared pieces of the bytes->bytes codecs: error constructors with a consistent message
// shape, and configuration readers that fail with INVALID_METADATA naming the codec and key.
import { floeError, isFloeError, type FloeError } from '../../errors.ts';
import { limitExceeded } from '../limits.ts';
import { DecodedSizeLimitError } from './decoded-size.ts';

/** Malformed encoded bytes: truncated, bad header, wrong decoded size. */
export function corrupt(codec: string, what: string, cause?: unknown): FloeError {
  return floeError(
    'CORRUPT_OBJECT',
    `${codec}: cannot decode, ${what}; the stored chunk is damaged or was written with another codec configuration`,
    { cause, details: { codec } },
  );
}

/**
 * Output past a decode's maxBytes, refused before it is produced: the chunk or file cannot hold
 * that much, so the object is damaged or a decompression bomb. `declared` is the size its header
 * claims, when it claims one.
 */
export function decodedTooLarge(codec: string, maxBytes: number, declared?: number): FloeError {
  const what = declared === undefined ? 'decodes to more than' : `declares ${declared} decoded bytes, more than`;
  return limitExceeded(
    'decoded-bytes',
    maxBytes,
    `${codec}: the data ${what} the ${maxBytes}-byte limit of what it can decode to here; refusing to decode it (a damaged object or a decompression bomb)`,
    { actual: declared, codec },
  );
}

/** A configuration the codec's spec forbids. */
export function invalidConfig(codec: string, what: string): FloeError {
  return floeError('INVALID_METADATA', `${codec} codec configuration: ${what}; fix the array metadata`, {
    details: { codec },
  });
}

/**
 * Runs a decoder: a backend's DecodedSizeLimitError becomes LIMIT_EXCEEDED, any other non-Floe
 * error (native library, RangeError) CORRUPT_OBJECT, each naming the codec.
 */
export function decodingGuard<T>(codec: string, decode: () => T): T {
  try {
    return decode();
  } catch (err) {
    if (isFloeError(err)) throw err;
    if (err instanceof DecodedSizeLimitError) throw decodedTooLarge(codec, err.maxBytes, err.declared);
    const reason = err instanceof Error ? err.message : String(err);
    throw corrupt(codec, reason, err);
  }
}

/** decodingGuard for an asynchronous decoder. */
export async function decodingGuardAsync<T>(codec: string, decode: () => Promise<T>): Promise<T> {
  try {
    return await decode();
  } catch (err) {
    return decodingGuard(codec, () => {
      throw err;
    });
  }
}

type Config = Record<string, unknown> | undefined;

/**
 * A configuration value as message text. Metadata JSON is parsed with exact 64-bit integers, so a
 * value may be a bigint, which JSON.stringify refuses (a TypeError instead of the intended error).
 */
export function shown(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? Number(v) : v)) ?? String(value);
}

/** Rejects keys the codec does not define (a typo would otherwise be silently ignored). */
export function checkKeys(codec: string, config: Config, allowed: readonly string[]): void {
  for (const key of Object.keys(config ?? {})) {
    if (!allowed.includes(key)) {
      throw invalidConfig(codec, `unknown key "${key}" (allowed: ${allowed.join(', ') || 'none'})`);
    }
  }
}

/** An integer in [min, max], or `fallback` when absent (undefined/null). */
export function readInt(codec: string, config: Config, key: string, min: number, max: number, fallback?: number): number {
  const value = config?.[key];
  if (value === undefined || value === null) {
    if (fallback === undefined) throw invalidConfig(codec, `"${key}" is required`);
    return fallback;
  }
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw invalidConfig(codec, `"${key}" must be an integer in [${min}, ${max}], got ${shown(value)}`);
  }
  return value;
}

export function readBool(codec: string, config: Config, key: string, fallback: boolean): boolean {
  const value = config?.[key];
  if (value === undefined || value === null) return fallback;
  if (typeof value !== 'boolean') throw invalidConfig(codec, `"${key}" must be true or false, got ${shown(value)}`);
  return value;
}

export function readChoice<T extends string>(codec: string, config: Config, key: string, choices: readonly T[], fallback?: T): T {
  const value = config?.[key];
  if (value === undefined || value === null) {
    if (fallback === undefined) throw invalidConfig(codec, `"${key}" is required (one of ${choices.join(', ')})`);
    return fallback;
  }
  if (typeof value !== 'string' || !(choices as readonly string[]).includes(value)) {
    throw invalidConfig(codec, `"${key}" must be one of ${choices.join(', ')}, got ${shown(value)}`);
  }
  return value as T;
}
