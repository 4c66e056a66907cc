// Issue 20: ref expressions (`main~3`, `v1^`, `3KJ9`, `main@{2026-11-01}`) against a linear
// model of history: an array of commits, oldest first, where `~N` is N places back, `^` one,
// `@{DATE}` the newest place at or before the tip whose time (as `floe log` shows it, in ms) is
// at or before DATE, and an id prefix names the one commit whose id starts with it. Ids share
// their first bytes often, so prefixes are ambiguous often; times are not sorted (clocks skew).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isFloeError } from '../../src/errors.ts';
import { asSnapshotId, idToString } from '../../src/format/icechunk/ids.ts';
import type { RepoInfo, SnapshotInfo } from '../../src/format/icechunk/repo-info.ts';
import { resolveRefExpression } from '../../src/txn/ref-expression.ts';

const RUNS = Number(process.env.FLOE_REF_PROPERTY_RUNS ?? 300);

interface Model {
  ids: string[];
  /** ms, what `floe log` shows; flushedAt adds micros below it. */
  times: number[];
  micros: number[];
  refs: { branch: Map<string, number>; tag: Map<string, number> };
}

type Step = { kind: '~'; n: number | null } | { kind: '^'; n: number | null } | { kind: '@'; at: number };

// Three leading bytes from few values: ids often share their first 4 or 5 characters.
const idBytes = fc.tuple(fc.constantFrom(0x00, 0x08, 0xff), fc.constantFrom(0x10, 0x11), fc.constantFrom(0x20, 0x21), fc.uint8Array({ minLength: 9, maxLength: 9 }))
  .map(([a, b, c, rest]) => Uint8Array.of(a, b, c, ...rest));

const modelArb = fc.integer({ min: 1, max: 12 }).chain((n) =>
  fc.record({
    idList: fc.uniqueArray(idBytes, { minLength: n, maxLength: n, selector: (b) => idToString(asSnapshotId(b)) }),
    times: fc.array(fc.integer({ min: 1_700_000_000_000, max: 1_700_000_000_100 }), { minLength: n, maxLength: n }),
    micros: fc.array(fc.integer({ min: 0, max: 999 }), { minLength: n, maxLength: n }),
    dev: fc.nat(n - 1),
    v1: fc.nat(n - 1),
  }).map(({ idList, times, micros, dev, v1 }): Model => ({
    ids: idList.map((b) => idToString(asSnapshotId(b))),
    times,
    micros,
    refs: { branch: new Map([['main', n - 1], ['dev', dev]]), tag: new Map([['v1', v1]]) },
  })),
);

function infoOf(model: Model): RepoInfo {
  const snapshots: SnapshotInfo[] = model.ids.map((id, i) => ({
    id: asSnapshotId(decode(id)),
    parentId: i === 0 ? null : asSnapshotId(decode(model.ids[i - 1]!)),
    flushedAt: (model.times[i] ?? 0) * 1000 + (model.micros[i] ?? 0),
    message: `commit ${i}`,
    metadata: [],
  }));
  const refs = (m: Map<string, number>) => [...m].map(([name, i]) => ({ name, snapshotId: asSnapshotId(decode(model.ids[i]!)) }));
  return {
    specVersion: 2, repoSpecVersion: 2, tags: refs(model.refs.tag), branches: refs(model.refs.branch), deletedTags: [],
    snapshots: snapshots.reverse(), status: { availability: 'online', setAt: 0, limitedAvailabilityReason: null }, metadata: [],
    latestUpdates: [], repoBeforeUpdates: null, config: null, enabledFeatureFlags: null, disabledFeatureFlags: null,
  };
}

/** Crockford base32 back to bytes, written out here rather than taken from the code under test. */
function decode(text: string): Uint8Array {
  const alphabet = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
  let bits = '';
  for (const c of text) bits += alphabet.indexOf(c).toString(2).padStart(5, '0');
  return Uint8Array.from({ length: 12 }, (_, i) => parseInt(bits.slice(i * 8, i * 8 + 8), 2));
}

/** The model's answer: a position in the line, or the error code. */
function modelResolve(model: Model, base: string, steps: readonly Step[]): number | string {
  let at = model.refs.branch.get(base) ?? model.refs.tag.get(base);
  if (at === undefined) {
    const matches = model.ids.flatMap((id, i) => (id.startsWith(base.toUpperCase()) && base.length >= 4 ? [i] : []));
    if (matches.length > 1) return 'AMBIGUOUS';
    at = matches[0];
  }
  if (at === undefined) return 'NOT_FOUND';
  for (const step of steps) {
    if (step.kind === '~' || step.kind === '^') {
      const n = step.n ?? 1;
      if (step.kind === '^' && n > 1) return 'NOT_FOUND';
      at -= n;
    } else {
      while (at >= 0 && (model.times[at] ?? 0) > step.at) at--;
    }
    if (at < 0) return 'NOT_FOUND';
  }
  return at;
}

const stepText = (s: Step) => (s.kind === '@' ? `@{${new Date(s.at).toISOString()}}` : `${s.kind}${s.n ?? ''}`);

const caseArb = modelArb.chain((model) => {
  const n = model.ids.length;
  const base = fc.oneof(
    fc.constantFrom('main', 'dev', 'v1', 'nope', 'mian'),
    fc.nat(n - 1).map((i) => model.ids[i]!),
    fc.record({ i: fc.nat(n - 1), len: fc.oneof(fc.integer({ min: 4, max: 6 }), fc.integer({ min: 4, max: 19 })), lower: fc.boolean() })
      .map(({ i, len, lower }) => (lower ? model.ids[i]!.slice(0, len).toLowerCase() : model.ids[i]!.slice(0, len))),
  );
  const step: fc.Arbitrary<Step> = fc.oneof(
    fc.record({ kind: fc.constant('~' as const), n: fc.option(fc.integer({ min: 0, max: n + 1 })) }),
    fc.record({ kind: fc.constant('^' as const), n: fc.option(fc.integer({ min: 0, max: 2 })) }),
    fc.record({ kind: fc.constant('@' as const), at: fc.constantFrom(...model.times).chain((t) => fc.integer({ min: t - 1, max: t + 1 })) }),
  );
  return fc.record({ model: fc.constant(model), base, steps: fc.array(step, { maxLength: 4 }) });
});

describe('ref expressions against a linear model of history (property)', () => {
  it('the generated cases cover every outcome: found, not found, ambiguous', () => {
    const outcomes = new Set(fc.sample(caseArb, { numRuns: 400, seed: 20 }).map(({ model, base, steps }) => {
      const r = modelResolve(model, base, steps);
      return typeof r === 'number' ? 'found' : r;
    }));
    expect([...outcomes].sort()).toEqual(['AMBIGUOUS', 'NOT_FOUND', 'found']);
  });

  it('resolve to the commit the model names, or fail with the code the model gives', async () => {
    await fc.assert(fc.asyncProperty(caseArb, async ({ model, base, steps }) => {
      const text = base + steps.map(stepText).join('');
      const expected = modelResolve(model, base, steps);
      let got: string;
      try {
        const resolved = await resolveRefExpression(text, { info: infoOf(model), snapshotExists: async () => false });
        got = String(model.ids.indexOf(resolved.snapshotId));
        expect(resolved.fixed).toBe(steps.length === 0 && base.length === 20);
      } catch (err) {
        if (!isFloeError(err)) throw err;
        got = err.code;
      }
      expect([text, got]).toEqual([text, String(expected)]);
    }), { numRuns: RUNS });
  });
});
