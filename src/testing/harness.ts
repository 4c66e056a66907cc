// The conformance harness: fast-check generates cases, two adapters run each one with the model
// as the oracle, and the first divergence comes back shrunk, with the seed and path that replay it.
import fc from './fast-check.ts';
import type { Arbitrary } from 'fast-check';
import { arrayCaseArb, type ArrayCase, type ArrayCaseOptions } from './arbitraries/array-metadata.ts';
import { arrayOpsArb, type ArrayOp, type ArrayOpsOptions } from './arbitraries/array-ops.ts';
import { repositoryHistoryArb, type HistoryOp, type HistoryOptions } from './arbitraries/repository-history.ts';
import type { ArrayAdapter, RepositoryAdapter } from './adapters/types.ts';
import { checkArrayCase } from './array-runner.ts';
import type { RepositoryModelOptions } from './model/repository-model.ts';
import { checkHistory, describeHistory, type Mismatch } from './repository-runner.ts';

/** How many random cases to run, from which seed (or which one case to replay). */
export interface RunOptions {
  readonly runs: number;
  readonly seed: number;
  /** fast-check's replay path of one failing case (from a previous report). */
  readonly path?: string;
  /** How the report spells the replay command; `{seed}` and `{path}` are filled in. */
  readonly replayCommand?: string;
}

/** The first case where two adapters disagreed, shrunk, with how to replay it. */
export interface Divergence {
  readonly mismatch: Mismatch;
  /** The shrunk case, readable. */
  readonly counterexample: string;
  readonly seed: number;
  readonly path: string;
  readonly replay: string;
}

/** The outcome of a conformance run: cases run and the divergence found, if any. */
export interface ConformanceResult {
  readonly runs: number;
  readonly divergence: Divergence | undefined;
}

async function run<T>(arb: Arbitrary<T>, check: (value: T) => Promise<Mismatch | undefined>, describe: (value: T) => string, options: RunOptions): Promise<ConformanceResult> {
  const details = await fc.check(
    fc.asyncProperty(arb, async (value) => (await check(value)) === undefined),
    { numRuns: options.runs, seed: options.seed, ...(options.path ? { path: options.path } : {}), endOnFailure: false },
  );
  if (!details.failed) return { runs: details.numRuns, divergence: undefined };
  // A predicate that threw (not a mismatch) is a harness or adapter bug: surface it as such.
  if (!details.counterexample) throw details.errorInstance ?? new Error('conformance run failed without a counterexample');
  const [value] = details.counterexample;
  const mismatch = (await check(value)) ?? { adapter: '?', step: -1, what: 'the case failed while shrinking only', expected: null, actual: null };
  const path = details.counterexamplePath ?? '';
  const replay = (options.replayCommand ?? 'seed {seed}, path "{path}"').replace('{seed}', String(details.seed)).replace('{path}', path);
  return { runs: details.numRuns, divergence: { mismatch, counterexample: describe(value), seed: details.seed, path, replay } };
}

/** Options of {@link compareArrays}. */
export interface ArrayConformanceOptions extends RunOptions {
  readonly cases?: ArrayCaseOptions;
  readonly ops?: ArrayOpsOptions;
}

/** Random arrays, reads and writes on both adapters; writes use flat C-order values. */
export function compareArrays(a: ArrayAdapter, b: ArrayAdapter, options: ArrayConformanceOptions): Promise<ConformanceResult> {
  const arb = arrayCaseArb(options.cases).chain((c) => fc.tuple(fc.constant(c), arrayOpsArb(c.shape, { writeForms: ['flat'], ...options.ops })));
  return run<[ArrayCase, ArrayOp[]]>(arb, ([c, ops]) => checkArrayCase([a, b], c, ops), describeArrayCase, options);
}

/** Options of {@link compareRepositories}. */
export interface RepositoryConformanceOptions extends RunOptions {
  readonly history?: HistoryOptions;
  /** The model's choices where implementations may differ (default: such ops are skipped). */
  readonly model?: RepositoryModelOptions;
}

/** Random repository histories on both adapters. */
export function compareRepositories(a: RepositoryAdapter, b: RepositoryAdapter, options: RepositoryConformanceOptions): Promise<ConformanceResult> {
  return run<HistoryOp[]>(repositoryHistoryArb(options.history), (h) => checkHistory([a, b], h, options.model), describeHistory, options);
}

export function describeArrayCase([c, ops]: readonly [ArrayCase, readonly ArrayOp[]]): string {
  const meta = JSON.stringify({ data_type: c.dtype.name, shape: c.shape, chunk_shape: c.chunkShape, fill_value: c.fill.json, codecs: c.codecs }, (_, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
  return [meta, ...ops.map((op, i) => `${String(i).padStart(3)}  ${op.kind} ${JSON.stringify(op.selection)}${op.kind === 'write' ? ` seed ${op.seed}` : ''}`)].join('\n');
}

/** A divergence as the text a person reads. */
export function formatDivergence(d: Divergence): string {
  const m = d.mismatch;
  return [
    `divergence in ${m.adapter} at ${m.step < 0 ? 'the final read' : `step ${m.step}`}: ${m.what}`,
    `  expected (model): ${JSON.stringify(m.expected, (_, v: unknown) => (v instanceof Uint8Array ? Array.from(v) : v))}`,
    `  actual:           ${JSON.stringify(m.actual, (_, v: unknown) => (v instanceof Uint8Array ? Array.from(v) : v))}`,
    'shrunk case:',
    d.counterexample,
    `replay: ${d.replay}`,
  ].join('\n');
}
