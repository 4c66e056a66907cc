// Model-based test: random repository histories (create, delete and move groups and arrays, write
// and erase chunks, commits from two racing sessions, branches, tags, resets) from floe/testing's
// arbitrary, replayed on Floe and checked against floe/testing's repository model: every op's
// outcome (including conflicts, empty commits and immutable tags), what the branch, tag or session
// reads afterwards, and at the end every branch and tag.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { floeRepositoryAdapter } from '../../src/testing/adapters/floe-repository.ts';
import { repositoryHistoryArb } from '../../src/testing/arbitraries/repository-history.ts';
import { checkHistory } from '../../src/testing/repository-runner.ts';

describe('repository against the floe/testing model', () => {
  it('every op and every read matches the model, chunks inline or not', async () => {
    await fc.assert(
      fc.asyncProperty(repositoryHistoryArb(), fc.constantFrom(0, 512), async (history, threshold) => {
        expect(await checkHistory([floeRepositoryAdapter({ inlineChunkThresholdBytes: threshold })], history)).toBeUndefined();
      }),
      { numRuns: 200 },
    );
  }, 120_000);
});
