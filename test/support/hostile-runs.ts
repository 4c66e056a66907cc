// Trial counts and seed of the hostile-input fuzzers: FLOE_HOSTILE_RUNS (inputs per kind) and
// FLOE_HOSTILE_SEED, with CI defaults that keep each test file well under 30 seconds.

/** Inputs per fuzzed kind; `fallback` is the CI default, scaled by the env value when it is set. */
export function hostileRuns(fallback: number): number {
  const raw = process.env['FLOE_HOSTILE_RUNS'];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isSafeInteger(n) || n < 1) throw new Error(`FLOE_HOSTILE_RUNS must be a positive integer, got "${raw}"`);
  return n;
}

/** The fast-check seed of every hostile fuzzer (one value, so a failure replays). */
export const HOSTILE_SEED = Number(process.env['FLOE_HOSTILE_SEED'] ?? 17);
