// Issue 36: "the key exists" is not "our bytes are stored". A create-only write (chunks, packs,
// manifests, snapshots, transaction logs, repo-info backups, the repository's first objects) that
// gets PRECONDITION_FAILED counts as done only when the key holds its bytes. The storages below
// lie in the three ways a network or a damaged store can: PRECONDITION_FAILED for a write that
// never happened (what the S3 backend answered to a 503 before the fix), a lost answer to a write
// that happened (the retry then meets its own object), and other bytes under a fresh id.
import { afterAll, describe, expect, it } from 'vitest';
import { ZarrArray } from '../../src/engine/array.ts';
import { slice } from '../../src/engine/selection.ts';
import { createOnce } from '../../src/engine/storage/create-once.ts';
import { withFaults } from '../../src/engine/storage/faults.ts';
import { MemoryStorage } from '../../src/engine/storage/memory.ts';
import { preconditionFailed } from '../../src/engine/storage/preconditions.ts';
import { withRetries } from '../../src/engine/storage/retries.ts';
import type { ObjectStorage } from '../../src/engine/storage/types.ts';
import { wrapStorage } from '../../src/engine/storage/wrap.ts';
import { REPO_INFO_KEY } from '../../src/format/icechunk/keys.ts';
import { makeFsStorage, makeSqliteStorage } from '../storage/backends.ts';
import { BasicConflictSolver, Repository } from '../../src/txn/index.ts';

const enc = (s: string) => new TextEncoder().encode(s);
const dec = (b: Uint8Array) => new TextDecoder().decode(b);

/** When a lying storage acts: after the repository exists, so the commit is what meets the lie. */
interface Trigger {
  armed: boolean;
  hits: string[];
  /** Only writes of this size range (packs and big chunks share the chunks/ prefix). */
  sizes?: { below: number };
}

const targets = (trigger: Trigger, key: string, prefix: string, times: number, size?: number) =>
  trigger.armed && key.startsWith(prefix) && trigger.hits.length < times && (size === undefined || !trigger.sizes || size < trigger.sizes.below);

/** Answers PRECONDITION_FAILED, writing nothing, to the first `times` puts of keys starting with `prefix`. */
function phantomExists(inner: ObjectStorage, prefix: string, trigger: Trigger, times = 1): ObjectStorage {
  return {
    ...wrapStorage(inner, (_call, run) => run()),
    async put(key, bytes, options) {
      if (targets(trigger, key, prefix, times, bytes.length)) {
        trigger.hits.push(key);
        throw preconditionFailed(key, 'injected: the server answered 503 and nothing was written');
      }
      return inner.put(key, bytes, options);
    },
  };
}

/** Before the first create of a key starting with `prefix`, someone puts other bytes of the same length there. */
function squatter(inner: ObjectStorage, prefix: string, trigger: Trigger): ObjectStorage {
  return {
    ...wrapStorage(inner, (_call, run) => run()),
    async put(key, bytes, options) {
      if (options?.ifNoneMatch === '*' && targets(trigger, key, prefix, 1, bytes.length)) {
        trigger.hits.push(key);
        await inner.put(key, bytes.map((b) => b ^ 0xff));
      }
      return inner.put(key, bytes, options);
    },
  };
}

/** The answer to the first put of a key starting with `prefix` is lost after the write happened; the put is retried. */
function lostAnswer(inner: ObjectStorage, prefix: string, trigger: Trigger): ObjectStorage {
  const faulty = withFaults(inner, (call) => {
    if (call.operation !== 'put' || !targets(trigger, call.key, prefix, 1)) return undefined;
    trigger.hits.push(call.key);
    return { kind: 'fail-after' };
  });
  return withRetries(faulty, { random: () => 0 });
}

const SMALL = 512; // int32 elements: 2 KiB chunks, packed
const BIG = 32 * 1024; // 128 KiB chunks: objects of their own
const smallValue = (i: number) => i + 1;
const bigValue = (i: number) => 7 * i + 3;

/** Creates a repository through `storage`, arms the trigger, commits a packed and a big-chunk array. */
async function commitThrough(storage: ObjectStorage, trigger: Trigger): Promise<{ repo: Repository; commit: Promise<string> }> {
  const repo = await Repository.create(storage);
  trigger.armed = true;
  const session = await repo.writableSession('main');
  const small = await ZarrArray.create(session.store, '/small', { shape: [4 * SMALL], chunkShape: [SMALL], dataType: 'int32', fillValue: 0 });
  const big = await ZarrArray.create(session.store, '/big', { shape: [2 * BIG], chunkShape: [BIG], dataType: 'int32', fillValue: 0 });
  const written = Promise.all([
    small.set([null], Int32Array.from({ length: 4 * SMALL }, (_, i) => smallValue(i))),
    big.set([null], Int32Array.from({ length: 2 * BIG }, (_, i) => bigValue(i))),
  ]);
  // The big chunks are written at `set`: a failure there surfaces as the commit's failure here.
  return { repo, commit: written.then(() => session.commit('values', { rebaseWith: new BasicConflictSolver() })) };
}

/** Reads everything back from a repository opened anew on the real storage; the commits on main. */
async function readBack(inner: ObjectStorage): Promise<{ commits: string[] }> {
  const repo = await Repository.open(inner);
  const read = await repo.readonlySession({ branch: 'main' });
  const small = (await (await ZarrArray.open(read.store, '/small')).get([slice(0, 4 * SMALL)])).data as Int32Array;
  const big = (await (await ZarrArray.open(read.store, '/big')).get([slice(0, 2 * BIG)])).data as Int32Array;
  expect(small.every((v, i) => v === smallValue(i))).toBe(true);
  expect(big.every((v, i) => v === bigValue(i))).toBe(true);
  const commits: string[] = [];
  for await (const s of repo.ancestry({ branch: 'main' })) if (s.parentId) commits.push(s.message);
  return { commits };
}

describe('createOnce', () => {
  it('creates, and takes a key that already holds exactly its bytes as stored', async () => {
    const storage = new MemoryStorage();
    expect(await createOnce(storage, 'chunks/A', enc('abc'))).toBe('created');
    expect(await createOnce(storage, 'chunks/A', enc('abc'))).toBe('already-stored');
  });

  it('refuses a key holding other bytes (same length or not) with ALREADY_EXISTS, leaving them as they were', async () => {
    const storage = new MemoryStorage();
    await storage.put('chunks/B', enc('xyz'));
    await expect(createOnce(storage, 'chunks/B', enc('abc'))).rejects.toMatchObject({ code: 'ALREADY_EXISTS', message: expect.stringMatching(/3 bytes, different content/) });
    await expect(createOnce(storage, 'chunks/B', enc('abcd'))).rejects.toMatchObject({ code: 'ALREADY_EXISTS', message: expect.stringMatching(/3 bytes, ours are 4/) });
    expect(dec((await storage.get('chunks/B'))!.bytes)).toBe('xyz');
  });

  it('writes again when told "exists" for a key that is absent, and gives up typed when that keeps happening', async () => {
    const inner = new MemoryStorage();
    const once: Trigger = { armed: true, hits: [] };
    expect(await createOnce(phantomExists(inner, 'chunks/', once), 'chunks/C', enc('abc'))).toBe('created');
    expect(dec((await inner.get('chunks/C'))!.bytes)).toBe('abc');
    const always: Trigger = { armed: true, hits: [] };
    await expect(createOnce(phantomExists(inner, 'chunks/', always, 100), 'chunks/D', enc('abc'))).rejects.toMatchObject({ code: 'STORAGE_ERROR' });
    expect(always.hits).toHaveLength(3);
    expect(await inner.get('chunks/D')).toBeNull();
  });
});

// Every key prefix a commit writes once under a fresh id.
const CREATED = ['chunks/', 'manifests/', 'snapshots/', 'transactions/', 'overwritten/'] as const;

// Each backend answers its own way underneath the lie: every one must end in the same outcome.
const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups) await cleanup();
});
const BACKENDS: { name: string; make: () => ObjectStorage }[] = [
  { name: 'memory', make: () => new MemoryStorage() },
  { name: 'fs', make: () => { const { storage, cleanup } = makeFsStorage(); cleanups.push(cleanup); return storage; } },
  { name: 'sqlite', make: () => { const { storage, cleanup } = makeSqliteStorage(); cleanups.push(async () => { await storage.close(); await cleanup(); }); return storage; } },
];

describe('a commit whose create-only write is answered "exists" although nothing was written', () => {
  describe.each(BACKENDS)('on $name', ({ make }) => {
    for (const prefix of CREATED) {
      it(`stores the ${prefix} object after all: every value reads back`, async () => {
        const inner = make();
        const trigger: Trigger = { armed: false, hits: [] };
        const { commit } = await commitThrough(phantomExists(inner, prefix, trigger), trigger);
        await commit;
        expect(trigger.hits).toHaveLength(1);
        expect((await readBack(inner)).commits).toEqual(['values']);
      });
    }

    it('stores a chunk pack (written at commit, not at set) after all: every value reads back', async () => {
      const inner = make();
      const trigger: Trigger = { armed: false, hits: [], sizes: { below: 4 * BIG } };
      const { commit } = await commitThrough(phantomExists(inner, 'chunks/', trigger), trigger);
      await commit;
      expect(trigger.hits).toHaveLength(1);
      expect((await inner.get(trigger.hits[0]!))!.bytes.length).toBe(4 * SMALL * 4);
      expect((await readBack(inner)).commits).toEqual(['values']);
    });
  });
});

describe('a commit whose create-only write finds other bytes under its fresh id', () => {
  describe.each(BACKENDS)('on $name', ({ make }) => {
    for (const prefix of CREATED) {
      it(`fails with ALREADY_EXISTS for ${prefix}, main unmoved and the other bytes untouched`, async () => {
        const inner = make();
        const trigger: Trigger = { armed: false, hits: [] };
        const { repo, commit } = await commitThrough(squatter(inner, prefix, trigger), trigger);
        const tip = await repo.lookupBranch('main');
        const error = await commit.then(() => expect.unreachable('the commit was reported done'), (e: unknown) => e);
        expect(error).toMatchObject({ code: 'ALREADY_EXISTS', where: trigger.hits[0] });
        expect(await (await Repository.open(inner)).lookupBranch('main')).toBe(tip);
        const squatted = (await inner.get(trigger.hits[0]!))!.bytes;
        expect(squatted.length).toBeGreaterThan(0);
      });
    }
  });
});

describe('a commit whose write landed but whose answer was lost', () => {
  describe.each(BACKENDS)('on $name', ({ make }) => {
    for (const prefix of [...CREATED, REPO_INFO_KEY]) {
      it(`${prefix}: the retry meets its own write and the commit is in the history exactly once`, async () => {
        const inner = make();
        const trigger: Trigger = { armed: false, hits: [] };
        const { commit } = await commitThrough(lostAnswer(inner, prefix, trigger), trigger);
        await commit;
        expect(trigger.hits).toHaveLength(1);
        expect((await readBack(inner)).commits).toEqual(['values']);
      });
    }
  });
});

describe('creating a repository through a lossy store', () => {
  it('a lost answer to the repo info create, then retried, is this repository (not ALREADY_EXISTS)', async () => {
    const inner = new MemoryStorage();
    const trigger: Trigger = { armed: true, hits: [] };
    const repo = await Repository.create(lostAnswer(inner, REPO_INFO_KEY, trigger));
    expect(trigger.hits).toEqual([REPO_INFO_KEY]);
    expect(await repo.listBranches()).toEqual(['main']);
  });

  it('takes the first objects a concurrent creator wrote when they are an empty root, and refuses damaged ones', async () => {
    for (const prefix of ['snapshots/', 'transactions/']) {
      const inner = new MemoryStorage();
      const trigger: Trigger = { armed: true, hits: [] };
      await expect(Repository.create(squatter(inner, prefix, trigger))).rejects.toMatchObject({ code: expect.stringMatching(/^(ALREADY_EXISTS|CORRUPT_OBJECT)$/) });
      expect(await inner.head(REPO_INFO_KEY)).toBeNull();
    }
    // A creator that lost the race after writing its initial snapshot: the next one takes it.
    const inner = new MemoryStorage();
    const first = await Repository.create(inner);
    const firstInitial = (await first.repoInfo()).snapshots[0]!;
    await inner.delete([REPO_INFO_KEY]);
    const second = await Repository.create(inner);
    expect((await second.repoInfo()).snapshots[0]!.flushedAt).toBe(firstInitial.flushedAt);
  });
});
