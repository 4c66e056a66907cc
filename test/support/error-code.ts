// What a call throws, as a code a test can compare: the FloeError code, a marked non-Floe error
// (so an untyped failure shows up in the assertion), or undefined when it did not throw.
import { isFloeError, type FloeError } from '../../src/errors.ts';

export function codeOf(run: () => unknown): string | undefined {
  try {
    run();
  } catch (err) {
    return isFloeError(err) ? err.code : `non-Floe: ${String(err)}`;
  }
  return undefined;
}

/** What a call throws as a FloeError: code, message and where; anything else fails the test. */
export function failureOf(run: () => unknown): { code: string; message: string; where: string | undefined } {
  try {
    run();
  } catch (err) {
    if (isFloeError(err)) return { code: err.code, message: err.message, where: err.where };
    throw err;
  }
  throw new Error('expected a FloeError');
}

/** The FloeError a call (sync or async) rejects with; anything else, or no refusal, fails the test. */
export async function refusal(run: () => unknown): Promise<FloeError> {
  try {
    await run();
  } catch (err) {
    if (isFloeError(err)) return err;
    throw new Error(`expected a FloeError, got ${String(err)}`, { cause: err });
  }
  throw new Error('expected a refusal');
}

/** `base` with `patch` applied and `drop` removed, as JSON text: a metadata document to test. */
export function documentWith(base: Record<string, unknown>, patch: Record<string, unknown>, drop?: string): string {
  const doc: Record<string, unknown> = { ...base, ...patch };
  if (drop) delete doc[drop];
  return JSON.stringify(doc);
}
