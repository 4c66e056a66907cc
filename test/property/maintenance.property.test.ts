// Random histories (partial writes that share chunks between snapshots, branches, tags, resets,
// branch deletes, expiry with and without ref deletion, clock steps) interleaved with garbage
// collection at the current time: every ref must read after each GC exactly what it read before.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ZarrArray } from '../../src/engine/array.ts';
import { ZarrGroup } from '../../src/engine/group.ts';
import { slice } from '../../src/engine/selection.ts';
import type { Repository } from '../../src/txn/index.ts';
import type { FakeClock } from '../../src/testing/fake-clock.ts';
import { ancestryIds, memoryRepo, readValues } from '../txn/maintenance/helpers.ts';

type Op =
  | { kind: 'write'; branch: number; chunk: number; value: number }
  | { kind: 'branch'; from: number }
  | { kind: 'tag'; from: number }
  | { kind: 'reset'; branch: number; back: number }
  | { kind: 'deleteBranch'; branch: number }
  | { kind: 'expire'; back: number; deleteRefs: boolean }
  | { kind: 'tick' }
  | { kind: 'gc' };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('write' as const), branch: fc.nat(3), chunk: fc.nat(3), value: fc.integer({ min: 1, max: 99 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('branch' as const), from: fc.nat(3) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('tag' as const), from: fc.nat(3) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('reset' as const), branch: fc.nat(3), back: fc.integer({ min: 1, max: 3 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('deleteBranch' as const), branch: fc.nat(3) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('expire' as const), back: fc.nat(4), deleteRefs: fc.boolean() }) },
  { weight: 3, arbitrary: fc.constant({ kind: 'tick' as const }) },
  { weight: 2, arbitrary: fc.constant({ kind: 'gc' as const }) },
);

const MIN = 60_000;

async function writeChunk(repo: Repository, branch: string, chunk: number, value: number): Promise<void> {
  const session = await repo.writableSession(branch);
  let array: ZarrArray;
  try {
    array = await ZarrArray.open(session.store, '/a');
  } catch {
    await ZarrGroup.create(session.store, '/');
    array = await ZarrArray.create(session.store, '/a', { shape: [8], chunkShape: [2], dataType: 'int32', fillValue: 0 } as never);
  }
  await array.set([slice(chunk * 2, chunk * 2 + 2)], value);
  await session.commit(`chunk ${chunk} = ${value}`);
}

async function readEveryRef(repo: Repository): Promise<Map<string, number[] | null>> {
  const out = new Map<string, number[] | null>();
  for (const b of await repo.listBranches()) {
    for (const id of await ancestryIds(repo, { branch: b })) out.set(`snap:${id}`, await readValues(repo, { snapshotId: id }));
    out.set(`branch:${b}`, await readValues(repo, { branch: b }));
  }
  for (const t of await repo.listTags()) out.set(`tag:${t}`, await readValues(repo, { tag: t }));
  return out;
}

async function gcAndCheck(repo: Repository, clock: FakeClock): Promise<void> {
  const before = await readEveryRef(repo);
  clock.advance(1);
  await repo.garbageCollect(new Date(clock.nowMs()), { allowShortGrace: true });
  expect(await readEveryRef(repo)).toEqual(before);
}

async function apply(repo: Repository, clock: FakeClock, op: Op, tagCount: { n: number }): Promise<void> {
  const branches = await repo.listBranches();
  const pick = (i: number) => branches[i % branches.length]!;
  const ignoreExpected = async (work: Promise<unknown>) => {
    try {
      await work;
    } catch (err) {
      if (!['ALREADY_EXISTS', 'NOT_FOUND', 'INVALID_ARGUMENT'].includes((err as { code?: string }).code ?? '')) throw err;
    }
  };
  switch (op.kind) {
    case 'write':
      return writeChunk(repo, pick(op.branch), op.chunk, op.value);
    case 'branch':
      return ignoreExpected(repo.createBranch(`b${branches.length}-${op.from}`, await repo.lookupBranch(pick(op.from))));
    case 'tag':
      return ignoreExpected(repo.createTag(`t${tagCount.n++}`, await repo.lookupBranch(pick(op.from))));
    case 'reset': {
      const chain = await ancestryIds(repo, { branch: pick(op.branch) });
      return repo.resetBranch(pick(op.branch), chain[Math.min(op.back, chain.length - 1)]!);
    }
    case 'deleteBranch':
      return ignoreExpected(repo.deleteBranch(pick(op.branch)));
    case 'expire':
      await repo.expireSnapshots(new Date(clock.nowMs() - op.back * MIN), { deleteExpiredBranches: op.deleteRefs, deleteExpiredTags: op.deleteRefs });
      return;
    case 'tick':
      clock.advance(MIN);
      return;
    case 'gc':
      return gcAndCheck(repo, clock);
  }
}

describe('maintenance never loses what a ref reads', () => {
  it('random histories with expiry, then GC: every ref reads the same before and after', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 1, maxLength: 25 }), async (ops) => {
        const { repo, clock } = await memoryRepo();
        const tagCount = { n: 0 };
        for (const op of ops) await apply(repo, clock, op, tagCount);
        await apply(repo, clock, { kind: 'expire', back: 0, deleteRefs: false }, tagCount);
        await gcAndCheck(repo, clock);
      }),
      { numRuns: 40 },
    );
  }, 240_000);
});
