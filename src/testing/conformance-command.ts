// What `floe conformance --against zarrita|icechunk --runs N --seed S [--path P]` runs: Floe against
// zarrita (plain Zarr v3 arrays) or against the reference Icechunk (repository histories).
import { floeArrayAdapter } from './adapters/floe-array.ts';
import { floeRepositoryAdapter } from './adapters/floe-repository.ts';
import { icechunkRepositoryAdapter } from './adapters/icechunk-repository.ts';
import { ZARRITA_DATA_TYPES, zarritaArrayAdapter } from './adapters/zarrita-array.ts';
import { compareArrays, compareRepositories, formatDivergence, type ConformanceResult } from './harness.ts';
import type { ArrayCaseOptions } from './arbitraries/array-metadata.ts';
import type { ArrayOpsOptions } from './arbitraries/array-ops.ts';

/** The implementation `floe conformance --against` compares Floe with. */
export type ConformancePeer = 'zarrita' | 'icechunk';

/** Options of {@link runConformance}, as the `floe conformance` command line gives them. */
export interface ConformanceCommandOptions {
  readonly against: ConformancePeer;
  readonly runs: number;
  readonly seed: number;
  readonly path?: string;
}

/**
 * The cases zarrita 0.7.5 can be held to: each exclusion is a divergence recorded with its minimal
 * case in docs/CONFORMANCE.md.
 */
export const ZARRITA_CASES: ArrayCaseOptions = Object.freeze({
  dataTypes: ZARRITA_DATA_TYPES, hexFloats: false, indexLocations: ['end'] as const, nonEmpty: true, shardingDepth: 1, afterSharding: false,
  safeIntegers: true, transposeBeforeSharding: false, bigEndianBool: false,
});
/** The read/write sequences zarrita can replay exactly (no negative steps, no empty selections). */
export const ZARRITA_SELECTIONS: ArrayOpsOptions = Object.freeze({ negativeSteps: false, nonEmptySelections: true });

/**
 * What `floe conformance` runs: Floe against zarrita (arrays) or the reference Icechunk
 * (repository histories); the result carries a printable report.
 */
export async function runConformance(options: ConformanceCommandOptions): Promise<ConformanceResult & { report: string }> {
  const replayCommand = `floe conformance --against ${options.against} --runs 1 --seed {seed} --path "{path}"`;
  const run = { runs: options.runs, seed: options.seed, replayCommand, ...(options.path ? { path: options.path } : {}) };
  let result: ConformanceResult;
  if (options.against === 'zarrita') {
    result = await compareArrays(floeArrayAdapter(), zarritaArrayAdapter(), { ...run, cases: ZARRITA_CASES, ops: ZARRITA_SELECTIONS });
  } else {
    const reference = icechunkRepositoryAdapter();
    try {
      result = await compareRepositories(floeRepositoryAdapter(), reference, run);
    } finally {
      await reference.dispose();
    }
  }
  const report = result.divergence
    ? formatDivergence(result.divergence)
    : `floe and ${options.against} agree on ${result.runs} generated cases (seed ${options.seed})`;
  return { ...result, report };
}
