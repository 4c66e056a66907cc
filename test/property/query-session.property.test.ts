// The query property over Icechunk sessions: random arrays, chunkings, shardings and predicates,
// written through a writable session and committed (manifests split per chunk along the first
// dimension, so planning picks among several). A read-only session's query equals the model, cold
// and warm (encoded bytes in the repository's caches), and so does a second session of the same
// snapshot (by then decoded chunks).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ZarrGroup } from '../../src/engine/group.ts';
import { MemoryStorage } from '../../src/engine/storage/memory.ts';
import { query } from '../../src/query/index.ts';
import type { RepositoryConfig } from '../../src/txn/config.ts';
import { Repository } from '../../src/txn/repository.ts';
import { Storage } from '../../src/txn/storage.ts';
import { applyPreds, dimArb, layoutArb, modelSelection, writeCase } from '../query/query-model.ts';

const splitByFirstDim: RepositoryConfig = { manifest: { splitting: { split_sizes: [['any_array', [{ condition: { DimensionName: 'd0' }, num_chunks: 1 }]]] } } };

describe('query properties over sessions', () => {
  it('equals the in-memory selection on committed data, cold and warm', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(dimArb, { minLength: 1, maxLength: 3 }), layoutArb, async (dims, layout) => {
        const repo = await Repository.create(Storage.fromObjectStorage(new MemoryStorage()), splitByFirstDim);
        const writer = await repo.writableSession('main');
        await ZarrGroup.create(writer.store, '/');
        const data = await writeCase(writer.store, dims, layout);
        await writer.commit('case');
        const { picked, values } = modelSelection(dims, data);
        const first = await repo.readonlySession({ branch: 'main' });
        const rounds = [['cold', first], ['warm', first], ['other session', await repo.readonlySession({ branch: 'main' })]] as const;
        for (const [round, session] of rounds) {
          const result = await applyPreds(query(session).from('/v', 'int32'), dims).execute();
          expect(result.shape, round).toEqual(picked.map((p) => p.length));
          expect(Array.from(result.data), round).toEqual(values);
          expect(result.report.fetched.unplanned.requests, round).toBe(0);
          if (round !== 'cold') expect(result.report.fetched.data.bytes + result.report.fetched.manifest.requests, round).toBe(0);
        }
      }),
      { numRuns: 50 },
    );
  });
});
