// Model-based test: random repository histories (create, delete and move groups and arrays, write
// and erase chunks, rewrite zarr.json, commits and rebases of two racing sessions, branches, tags,
// resets) from floe/testing's arbitrary, replayed on Floe and checked against floe/testing's
// repository model: every op's outcome (including conflicts by the model's own rules, empty
// commits and immutable tags), what the branch, tag or session reads afterwards, and at the end
// every branch and tag. Where Floe and the reference differ (docs/CONFORMANCE.md: rebasing over
// moves, new nodes whose parent group went away or was replaced, deleting a group the other side
// added to), the model holds Floe to Floe's rules.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { floeRepositoryAdapter } from '../../src/testing/adapters/floe-repository.ts';
import { repositoryHistoryArb } from '../../src/testing/arbitraries/repository-history.ts';
import { checkHistory } from '../../src/testing/repository-runner.ts';

const FLOE_RULES = { disputed: 'floe' } as const;

// 100 histories: each races two sessions from shared content, so holds about twice the commits
// (and the rebases) the 200 shorter ones of before did, in about the same time.

describe('repository against the floe/testing model', () => {
  it('every op and every read matches the model, chunks inline or not', async () => {
    await fc.assert(
      fc.asyncProperty(repositoryHistoryArb(), fc.constantFrom(0, 512), async (history, threshold) => {
        const adapter = floeRepositoryAdapter({ inlineChunkThresholdBytes: threshold });
        expect(await checkHistory([adapter], history, FLOE_RULES)).toBeUndefined();
      }),
      { numRuns: 100 },
    );
  }, 120_000);
});
