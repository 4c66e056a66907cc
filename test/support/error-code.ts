// What a call throws, as a code a test can compare: the FloeError code, a marked non-Floe error
// (so an untyped failure shows up in the assertion), or undefined when it did not throw.
import { isFloeError } from '../../src/errors.ts';

export function codeOf(run: () => unknown): string | undefined {
  try {
    run();
  } catch (err) {
    return isFloeError(err) ? err.code : `non-Floe: ${String(err)}`;
  }
  return undefined;
}
