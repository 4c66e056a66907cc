// Issue 18: split sizes resolved as the reference Icechunk resolves them, against a model written
// from its rules, not from Floe's code: for each dimension, the first rule (in order) whose array
// condition matches the array and which has a dimension condition matching that dimension gives
// the size (its first such condition); no such rule: not split. Regexes are drawn from forms whose
// Rust meaning is plain string tests (a literal, anchored or not, `.*`, and two patterns Rust
// cannot compile, which match nothing), so the model needs no regex engine.
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ManifestSplitCondition, ManifestSplitDim, ManifestSplitDimCondition, ManifestSplitRule } from '../../src/format/icechunk/repo-config.ts';
import { loadConfigCodec, resolveConfig } from '../../src/txn/config.ts';
import { splitSizesFor } from '../../src/txn/manifest-splitting.ts';
import { splitSizesForRules } from '../../src/txn/split-rules.ts';

const RUNS = Number(process.env.FLOE_SPLIT_PROPERTY_RUNS ?? 300);

// --- the model ---

type ModelRegex = { kind: 'literal'; text: string; start: boolean; end: boolean } | { kind: 'any' } | { kind: 'broken'; source: string };

function regexSource(r: ModelRegex): string {
  if (r.kind === 'any') return '.*';
  if (r.kind === 'broken') return r.source;
  return `${r.start ? '^' : ''}${r.text}${r.end ? '$' : ''}`;
}

/** Rust's is_match for these forms: a substring test, pinned to the start and/or end by anchors. */
function modelMatches(r: ModelRegex, text: string): boolean {
  if (r.kind === 'any') return true;
  if (r.kind === 'broken') return false;
  if (r.start && r.end) return text === r.text;
  if (r.start) return text.startsWith(r.text);
  if (r.end) return text.endsWith(r.text);
  return text.includes(r.text);
}

type ModelCondition =
  | { kind: 'any_array' }
  | { kind: 'path'; regex: ModelRegex }
  | { kind: 'name'; regex: ModelRegex }
  | { kind: 'and' | 'or'; parts: ModelCondition[] };
type ModelDim = { kind: 'axis'; axis: number } | { kind: 'dimName'; regex: ModelRegex } | { kind: 'anyDim' };
interface ModelRule { condition: ModelCondition; dims: { dim: ModelDim; size: number }[] }

function modelArrayMatches(c: ModelCondition, path: string): boolean {
  switch (c.kind) {
    case 'any_array': return true;
    case 'path': return modelMatches(c.regex, path);
    // The name is the text after the last '/'; the root ('/') has none.
    case 'name': return path !== '/' && modelMatches(c.regex, path.split('/').pop() ?? '');
    case 'and': return c.parts.every((p) => modelArrayMatches(p, path));
    case 'or': return c.parts.some((p) => modelArrayMatches(p, path));
  }
}

function modelDimMatches(d: ModelDim, axis: number, name: string | null): boolean {
  if (d.kind === 'anyDim') return true;
  if (d.kind === 'axis') return d.axis === axis;
  return name !== null && modelMatches(d.regex, name);
}

function modelSizes(rules: ModelRule[], path: string, names: (string | null)[] | null, rank: number): (number | undefined)[] {
  const sizes: (number | undefined)[] = [];
  for (let axis = 0; axis < rank; axis++) {
    const name = names === null ? null : (names[axis] ?? null);
    let size: number | undefined;
    for (const rule of rules) {
      if (!modelArrayMatches(rule.condition, path)) continue;
      const hit = rule.dims.find((d) => modelDimMatches(d.dim, axis, name));
      if (hit) {
        size = hit.size;
        break;
      }
    }
    sizes.push(size);
  }
  return sizes;
}

// --- the model in the config's own form ---

const toRegex = (r: ModelRegex) => ({ regex: regexSource(r) });
function toCondition(c: ModelCondition): ManifestSplitCondition {
  switch (c.kind) {
    case 'any_array': return 'any_array';
    case 'path': return { path_matches: toRegex(c.regex) };
    case 'name': return { name_matches: toRegex(c.regex) };
    case 'and': return { and: c.parts.map(toCondition) };
    case 'or': return { or: c.parts.map(toCondition) };
  }
}
function toDim({ dim, size }: { dim: ModelDim; size: number }): ManifestSplitDim {
  const condition: ManifestSplitDimCondition =
    dim.kind === 'anyDim' ? 'Any' : dim.kind === 'axis' ? { Axis: dim.axis } : { DimensionName: regexSource(dim.regex) };
  return { condition, num_chunks: size };
}
const toRules = (rules: ModelRule[]): ManifestSplitRule[] => rules.map((r) => [toCondition(r.condition), r.dims.map(toDim)]);

// --- arbitraries: a small alphabet, so that names, paths and regexes meet often ---

const word = fc.stringMatching(/^[abc]{1,3}$/);
const regex: fc.Arbitrary<ModelRegex> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('literal' as const), text: word, start: fc.boolean(), end: fc.boolean() }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'any' as const }) },
  // An unclosed group and a look-ahead: Rust refuses both, so they match nothing.
  { weight: 1, arbitrary: fc.constantFrom('(a', '(?=a)').map((source) => ({ kind: 'broken' as const, source })) },
);
const { condition } = fc.letrec<{ condition: ModelCondition }>((tie) => ({
  condition: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constant({ kind: 'any_array' as const }),
    regex.map((r) => ({ kind: 'path' as const, regex: r })),
    regex.map((r) => ({ kind: 'name' as const, regex: r })),
    fc.record({ kind: fc.constantFrom('and' as const, 'or' as const), parts: fc.array(tie('condition'), { maxLength: 3 }) }),
  ),
}));
const dim: fc.Arbitrary<ModelDim> = fc.oneof(
  fc.integer({ min: 0, max: 4 }).map((axis) => ({ kind: 'axis' as const, axis })),
  regex.map((r) => ({ kind: 'dimName' as const, regex: r })),
  fc.constant({ kind: 'anyDim' as const }),
);
const size = fc.oneof({ weight: 9, arbitrary: fc.integer({ min: 1, max: 6 }) }, { weight: 1, arbitrary: fc.constant(2 ** 32 - 1) });
const rule: fc.Arbitrary<ModelRule> = fc.record({ condition, dims: fc.array(fc.record({ dim, size }), { maxLength: 4 }) });
const path = fc.oneof(
  { weight: 9, arbitrary: fc.array(word, { minLength: 1, maxLength: 3 }).map((parts) => `/${parts.join('/')}`) },
  { weight: 1, arbitrary: fc.constant('/') },
);
const target = fc.integer({ min: 0, max: 4 }).chain((rank) =>
  fc.record({
    path,
    rank: fc.constant(rank),
    names: fc.option(fc.array(fc.option(word, { freq: 3 }), { minLength: rank, maxLength: rank }), { freq: 4 }),
  }),
);

describe('split sizes as the reference resolves them (model-based)', () => {
  // resolveConfig writes the manifest config's stored form with the codec, loaded on first need.
  beforeAll(async () => {
    await loadConfigCodec();
  });

  it('every matching rule takes part, each dimension sized by the first rule and condition that match it', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(rule, { maxLength: 5 }), target, async (rules, { path, rank, names }) => {
        const expected = modelSizes(rules, path, names, rank);
        const splitTarget = { path, dimensionNames: names, rank };
        // Through the stored form, as commits pass it, and straight from the typed rules.
        const stored = resolveConfig({ manifest: { splitting: { split_sizes: toRules(rules) } } }).manifest;
        expect(await splitSizesFor(stored, splitTarget)).toEqual(expected);
        expect(splitSizesForRules(toRules(rules), splitTarget)).toEqual(expected);
      }),
      { numRuns: RUNS },
    );
  });

  it('without rules, or with none matching, no dimension is split', async () => {
    await fc.assert(
      fc.asyncProperty(target, async ({ path, rank, names }) => {
        const none = new Array(rank).fill(undefined);
        const splitTarget = { path, dimensionNames: names, rank };
        expect(await splitSizesFor(resolveConfig({}).manifest, splitTarget)).toEqual(none);
        expect(await splitSizesFor(resolveConfig({ manifest: { splitting: { split_sizes: [] } } }).manifest, splitTarget)).toEqual(none);
        expect(await splitSizesFor(resolveConfig({ manifest: { splitting: {} } }).manifest, splitTarget)).toEqual(none);
        const unmatched: ManifestSplitRule[] = [[{ path_matches: { regex: '(' } }, [{ condition: 'Any', num_chunks: 2 }]]];
        expect(await splitSizesFor(resolveConfig({ manifest: { splitting: { split_sizes: unmatched } } }).manifest, splitTarget)).toEqual(none);
      }),
      { numRuns: Math.ceil(RUNS / 3) },
    );
  });
});
