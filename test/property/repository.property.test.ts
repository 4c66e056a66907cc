// Model-based test: random sequences of session operations (create and delete groups and arrays,
// write and delete chunks, commit, branch, tag, reset) run against a Floe repository and a plain
// in-memory model. After every commit, and for every tag at the end, what Floe reads back equals
// the model.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ZarrArray } from '../../src/engine/array.ts';
import { ZarrGroup } from '../../src/engine/group.ts';
import { slice } from '../../src/engine/selection.ts';
import { Repository, Storage, type Session } from '../../src/txn/index.ts';

const NAMES = ['a', 'b', 'c'] as const;
const CHUNKS = 4;
const CHUNK = 2;

type ModelNode = { kind: 'group' } | { kind: 'array'; chunks: Map<number, number> };
type Model = Map<string, ModelNode>;

type Op =
  | { op: 'createGroup'; name: string }
  | { op: 'createArray'; name: string }
  | { op: 'delete'; name: string }
  | { op: 'write'; name: string; chunk: number; value: number }
  | { op: 'eraseChunk'; name: string; chunk: number }
  | { op: 'commit' }
  | { op: 'branch' }
  | { op: 'tag' }
  | { op: 'reset'; back: number };

const name = fc.constantFrom(...NAMES);
const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ op: fc.constant('createGroup' as const), name }),
  fc.record({ op: fc.constant('createArray' as const), name }),
  fc.record({ op: fc.constant('delete' as const), name }),
  fc.record({ op: fc.constant('write' as const), name, chunk: fc.nat(CHUNKS - 1), value: fc.integer({ min: 0, max: 3 }) }),
  fc.record({ op: fc.constant('write' as const), name, chunk: fc.nat(CHUNKS - 1), value: fc.integer({ min: 1, max: 1000 }) }),
  fc.record({ op: fc.constant('eraseChunk' as const), name, chunk: fc.nat(CHUNKS - 1) }),
  fc.constant({ op: 'commit' as const }),
  fc.constant({ op: 'branch' as const }),
  fc.constant({ op: 'tag' as const }),
  fc.record({ op: fc.constant('reset' as const), back: fc.nat(4) }),
);

const clone = (m: Model): Model =>
  new Map([...m].map(([k, v]) => [k, v.kind === 'group' ? v : { kind: 'array', chunks: new Map(v.chunks) }]));

async function checkAgainst(session: Session, model: Model): Promise<void> {
  const root = await ZarrGroup.open(session.store, '/');
  const children = await root.children();
  expect(children.map((c) => `${c.name}:${c.kind}`)).toEqual([...model].sort(([x], [y]) => (x < y ? -1 : 1)).map(([k, v]) => `${k}:${v.kind}`));
  for (const [key, node] of model) {
    if (node.kind !== 'array') continue;
    const got = Array.from((await (await ZarrArray.open(session.store, `/${key}`)).get()).data as Int32Array);
    expect(got, key).toEqual(Array.from({ length: CHUNKS * CHUNK }, (_, i) => node.chunks.get(Math.floor(i / CHUNK)) ?? 0));
  }
}

async function runScenario(ops: Op[], inlineThreshold: number): Promise<void> {
  const repo = await Repository.create(Storage.newInMemory(), { inlineChunkThresholdBytes: inlineThreshold });
  let branch = 'main';
  let session = await repo.writableSession(branch);
  await ZarrGroup.create(session.store, '/');
  let model: Model = new Map();
  let committed: Model = new Map();
  const snapshots: { id: string; model: Model }[] = [{ id: await session.commit('root'), model: new Map() }];
  const tags: { name: string; model: Model }[] = [];
  let branches = 0;

  for (const step of ops) {
    switch (step.op) {
      case 'createGroup':
      case 'createArray': {
        if (model.has(step.name)) break;
        if (step.op === 'createGroup') {
          await ZarrGroup.create(session.store, `/${step.name}`);
          model.set(step.name, { kind: 'group' });
        } else {
          await ZarrArray.create(session.store, `/${step.name}`, { shape: [CHUNKS * CHUNK], chunkShape: [CHUNK], dataType: 'int32', fillValue: 0 } as never);
          model.set(step.name, { kind: 'array', chunks: new Map() });
        }
        break;
      }
      case 'delete':
        if (!model.has(step.name)) break;
        await session.store.erasePrefix(`${step.name}/`);
        model.delete(step.name);
        break;
      case 'write': {
        const node = model.get(step.name);
        if (node?.kind !== 'array') break;
        await (await ZarrArray.open(session.store, `/${step.name}`)).set([slice(step.chunk * CHUNK, (step.chunk + 1) * CHUNK)], step.value);
        if (step.value === 0) node.chunks.delete(step.chunk);
        else node.chunks.set(step.chunk, step.value);
        break;
      }
      case 'eraseChunk': {
        const node = model.get(step.name);
        if (node?.kind !== 'array') break;
        await session.store.erase(`${step.name}/c/${step.chunk}`);
        node.chunks.delete(step.chunk);
        break;
      }
      case 'commit': {
        const id = await session.commit('step', { allowEmpty: true });
        committed = clone(model);
        snapshots.push({ id, model: committed });
        await checkAgainst(await repo.readonlySession({ branch }), committed);
        await checkAgainst(session, model);
        break;
      }
      case 'branch': {
        // A new branch at the last commit; uncommitted changes are dropped, as a fresh session would.
        const name = `b${branches++}`;
        await repo.createBranch(name, await repo.lookupBranch(branch));
        branch = name;
        session = await repo.writableSession(branch);
        model = clone(committed);
        break;
      }
      case 'tag': {
        const name = `t${tags.length}`;
        await repo.createTag(name, await repo.lookupBranch(branch));
        tags.push({ name, model: clone(committed) });
        break;
      }
      case 'reset': {
        const target = snapshots[Math.max(0, snapshots.length - 1 - step.back)]!;
        await repo.resetBranch(branch, target.id, await repo.lookupBranch(branch));
        session = await repo.writableSession(branch);
        committed = clone(target.model);
        model = clone(committed);
        await checkAgainst(await repo.readonlySession({ branch }), committed);
        break;
      }
    }
  }
  for (const tag of tags) await checkAgainst(await repo.readonlySession({ tag: tag.name }), tag.model);
}

describe('repository against an in-memory model', () => {
  it('reads back the model after every commit, on every branch and tag', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 1, maxLength: 40 }), fc.constantFrom(0, 512), (ops, threshold) => runScenario(ops, threshold)),
      { numRuns: 60 },
    );
  }, 120_000);
});
