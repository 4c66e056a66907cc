// GC benchmark: a local-filesystem repository with SNAPSHOTS real commits (default 1,000), each
// rewriting CHUNKS_PER_COMMIT chunks (default 100) of one of 10 arrays through an ordinary session,
// so 100,000 chunk objects exist, each commit superseding the chunks its array had before. Half of
// the history is then expired and GC runs: objects scanned per second, deletes, total time.
// Run: npx tsx bench/gc.ts            (SNAPSHOTS=200 CHUNKS_PER_COMMIT=50 for a quick look)
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ZarrArray } from '../src/engine/array.ts';
import { ZarrGroup } from '../src/engine/group.ts';
import { Repository, Storage } from '../src/txn/index.ts';

const SNAPSHOTS = Number(process.env.SNAPSHOTS ?? 1000);
const CHUNKS_PER_COMMIT = Number(process.env.CHUNKS_PER_COMMIT ?? 100);
const ARRAYS = 10;

const dir = mkdtempSync(path.join(tmpdir(), 'floe-bench-gc-'));
try {
  const storage = Storage.newLocalFilesystem(dir);
  // One object per chunk, as the scale asks (packing would put each commit's chunks in one object).
  const repo = await Repository.create(storage, { inlineChunkThresholdBytes: 1 }, 2, {}, { chunkPacking: false });
  const genStart = performance.now();
  const setup = await repo.writableSession('main');
  await ZarrGroup.create(setup.store, '/');
  for (let a = 0; a < ARRAYS; a++) {
    await ZarrArray.create(setup.store, `/a${a}`, { shape: [CHUNKS_PER_COMMIT * 4], chunkShape: [4], dataType: 'int32', fillValue: 0 } as never);
  }
  await setup.commit('arrays');
  let midpoint = new Date();
  for (let i = 0; i < SNAPSHOTS; i++) {
    const session = await repo.writableSession('main');
    const array = await ZarrArray.open(session.store, `/a${i % ARRAYS}`);
    await array.set(undefined, Int32Array.from({ length: CHUNKS_PER_COMMIT * 4 }, (_, j) => i * 7 + j));
    await session.commit(`commit ${i}`);
    if (i === Math.floor(SNAPSHOTS / 2)) midpoint = new Date();
  }
  const genMs = performance.now() - genStart;
  console.log(`generated ${SNAPSHOTS} commits x ${CHUNKS_PER_COMMIT} chunks = ${SNAPSHOTS * CHUNKS_PER_COMMIT} chunk objects in ${(genMs / 1000).toFixed(1)} s`);

  await repo.expireSnapshots(midpoint);
  const cutoff = new Date(Date.now() + 0);
  await new Promise((r) => setTimeout(r, 5));
  for (const dryRun of [true, false]) {
    const start = performance.now();
    const summary = await repo.garbageCollect(cutoff, { dryRun, maxConcurrentDeletes: 4, allowShortGrace: true }); // one writer, finished
    const ms = performance.now() - start;
    const d = summary.deleted;
    console.log(
      `${dryRun ? 'dry run' : 'gc     '}: scanned ${summary.scanned} objects in ${(ms / 1000).toFixed(2)} s = ${Math.round(summary.scanned / (ms / 1000))} objects/s; ` +
        `${dryRun ? 'would delete' : 'deleted'} chunks ${d.chunks.objects} (${(d.chunks.bytes / 1e6).toFixed(1)} MB), manifests ${d.manifests.objects}, snapshots ${d.snapshots.objects}, logs ${d.transactionLogs.objects}, backups ${d.backups.objects}`,
    );
  }
  const gc = await repo.garbageCollector(new Date(), { allowShortGrace: true });
  const start = performance.now();
  let steps = 0;
  for (let r = await gc.run({ maxObjects: 10_000 }); !r.done; r = await gc.run({ maxObjects: 10_000 })) steps++;
  console.log(`incremental re-run over the cleaned repository: ${steps + 1} steps of 10,000 objects, ${((performance.now() - start) / 1000).toFixed(2)} s`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
