// Issue 20: `Repository.resolve` names snapshots as git names revisions: abbreviated ids,
// `~N`, `^`, `@{DATE}`, with "did you mean" for a mistyped name and the candidates of an
// ambiguous prefix. Before this, only whole branch, tag and id names (and `~N` in the CLI) existed.
import { describe, expect, it } from 'vitest';
import { ZarrArray } from '../../src/engine/array.ts';
import { MemoryStorage } from '../../src/engine/storage/memory.ts';
import { isFloeError } from '../../src/errors.ts';
import { asSnapshotId, parseSnapshotId } from '../../src/format/icechunk/ids.ts';
import { REPO_INFO_KEY } from '../../src/format/icechunk/keys.ts';
import { decodeRepoInfo, encodeRepoInfo, type RepoInfo } from '../../src/format/icechunk/repo-info.ts';
import { FakeClock } from '../../src/testing/fake-clock.ts';
import { Repository, Storage } from '../../src/txn/index.ts';
import { refusal } from '../support/error-code.ts';

const DAY = 86_400_000;
const START = Date.UTC(2026, 0, 1, 12); // the repository is created at noon UTC, 2026-01-01

/** main: init (Jan 1), one (Jan 2), two (Jan 3), three (Jan 4); tag v1 at one. Values: the commit number. */
async function history() {
  const backend = new MemoryStorage();
  const clock = new FakeClock({ startMs: START });
  const repo = await Repository.create(Storage.fromObjectStorage(backend), {}, 2, {}, { clock });
  const ids = [await repo.lookupBranch('main')];
  for (let n = 1; n <= 3; n++) {
    clock.advance(DAY);
    const session = await repo.writableSession('main');
    const a = n === 1 ? await ZarrArray.create(session.store, '/a', { shape: [1], chunkShape: [1], dataType: 'int32', fillValue: 0 }) : await ZarrArray.open(session.store, '/a');
    await a.set(undefined, n);
    ids.push(await session.commit(['', 'one', 'two', 'three'][n]!));
  }
  await repo.createTag('v1', ids[1]!);
  return { backend, repo, ids };
}

/** Rewrites the repo info file (what a damaged or foreign writer could leave) and reopens. */
async function patched(backend: MemoryStorage, change: (info: RepoInfo) => RepoInfo): Promise<Repository> {
  const info = decodeRepoInfo((await backend.get(REPO_INFO_KEY))!.bytes);
  await backend.put(REPO_INFO_KEY, encodeRepoInfo(change(info)));
  return Repository.open(Storage.fromObjectStorage(backend));
}

const value = async (repo: Repository, expression: string) => {
  const session = await repo.readonlySession((await repo.resolve(expression)).version);
  return (await (await ZarrArray.open(session.store, '/a')).get()).data[0];
};

describe('Repository.resolve', () => {
  it('names branches and tags as themselves, full ids as fixed, and walks ~N and ^', async () => {
    const { repo, ids } = await history();
    const [init, one, two, three] = ids as [string, string, string, string];
    expect(await repo.resolve('main')).toEqual({ expression: 'main', snapshotId: three, version: { branch: 'main' }, fixed: false });
    expect(await repo.resolve('v1')).toMatchObject({ snapshotId: one, version: { tag: 'v1' } });
    expect(await repo.resolve(two)).toEqual({ expression: two, snapshotId: two, version: { snapshotId: two }, fixed: true });
    const walks: [string, string][] = [
      ['main~0', three], ['main~1', two], ['main~', two], ['main~3', init], ['main^', two], ['main^^', one], ['main^1^1^1', init],
      ['main^0', three], ['main~1^', one], ['v1~1', init], [`${three}~2`, one],
    ];
    for (const [expression, id] of walks) expect([expression, (await repo.resolve(expression)).snapshotId]).toEqual([expression, id]);
    expect(await repo.resolve('main~1')).toMatchObject({ version: { snapshotId: two }, fixed: false });
    expect([await value(repo, 'main~2'), await value(repo, 'main^'), await value(repo, 'main')]).toEqual([1, 2, 3]);
  });

  it('resolves a unique id prefix of 4+ characters in any case', async () => {
    const { repo, ids } = await history();
    const two = ids[2]!;
    expect((await repo.resolve(two.slice(0, 8))).snapshotId).toBe(two);
    expect((await repo.resolve(two.slice(0, 12).toLowerCase())).snapshotId).toBe(two);
    expect(await repo.resolve(`${two.slice(0, 10)}~1`)).toMatchObject({ snapshotId: ids[1], fixed: false });
    const short = await refusal(() => repo.resolve(two.slice(0, 3)));
    expect([short.code, short.message]).toEqual(['NOT_FOUND', expect.stringContaining('a snapshot id prefix needs at least 4 characters')]);
  });

  it('refuses an ambiguous prefix with every candidate, and reads a longer one', async () => {
    const { backend, ids } = await history();
    const two = ids[2]!;
    const twin = Uint8Array.from(parseSnapshotId(two));
    twin[11] = twin[11]! ^ 0xff; // the same first 18 characters
    const repo = await patched(backend, (info) => {
      const original = info.snapshots.find((s) => Buffer.from(s.id).equals(Buffer.from(parseSnapshotId(two))))!;
      return { ...info, snapshots: [...info.snapshots, { ...original, id: asSnapshotId(twin), message: 'a twin' }] };
    });
    const err = await refusal(() => repo.resolve(two.slice(0, 6)));
    expect(err.code).toBe('AMBIGUOUS');
    if (!isFloeError(err, 'AMBIGUOUS')) throw err;
    expect(err.details.candidates).toHaveLength(2);
    expect(err.details.candidates).toContain(two);
    for (const id of err.details.candidates) expect(err.message).toContain(id);
    expect(err.message).toMatch(/2 snapshots start with it: .*"a twin".*give more characters/);
    expect((await repo.resolve(two)).snapshotId).toBe(two);
  });

  it('REF@{DATE}: the newest snapshot of REF\'s history written at or before DATE', async () => {
    const { repo, ids } = await history();
    const [init, one, two, three] = ids as [string, string, string, string];
    const cases: [string, string][] = [
      ['main@{2026-01-03}', one], // midnight Jan 3: "one" (Jan 2, noon) is the newest before it
      ['main@{2026-01-03T12:00:00Z}', two], // exactly when "two" was written: at or before
      ['main@{2026-01-03T11:59:59.999Z}', one],
      ['main@{2026-01-03T13:00:00+01:00}', two], // 12:00 UTC
      ['main@{2026-01-01T12:00Z}', init],
      ['main@{2099-01-01}', three],
      ['main@{2026-01-04}~1', one],
      ['v1@{2099-01-01}', one],
    ];
    for (const [expression, id] of cases) expect([expression, (await repo.resolve(expression)).snapshotId]).toEqual([expression, id]);
    const before = await refusal(() => repo.resolve('main@{2025-12-31}'));
    expect([before.code, before.message]).toEqual(['NOT_FOUND', expect.stringContaining('its oldest snapshot was written 2026-01-01T12:00:00.000Z')]);
  });

  it('refuses bad syntax, impossible dates, reflog forms and a second parent, saying what to write', async () => {
    const { repo } = await history();
    const refused = async (expression: string) => {
      const err = await refusal(() => repo.resolve(expression));
      return [expression, err.code, err.message] as const;
    };
    expect(await refused('main@{2026-02-30}')).toEqual(['main@{2026-02-30}', 'INVALID_ARGUMENT', expect.stringContaining('February 2026 has 28 days, not 30')]);
    expect(await refused('main@{2026-01-03T10:00}')).toEqual(['main@{2026-01-03T10:00}', 'INVALID_ARGUMENT', expect.stringContaining('a time needs a zone')]);
    expect(await refused('main@{1}')).toEqual(['main@{1}', 'INVALID_ARGUMENT', expect.stringContaining("git's reflog")]);
    expect(await refused('main~x')).toEqual(['main~x', 'INVALID_ARGUMENT', expect.stringContaining('unexpected "x"')]);
    expect(await refused('~1')).toEqual(['~1', 'INVALID_ARGUMENT', expect.stringContaining('starts with no branch')]);
    expect(await refused('main^2')).toEqual(['main^2', 'NOT_FOUND', expect.stringContaining('one parent')]);
    expect(await refused('main~4')).toEqual(['main~4', 'NOT_FOUND', expect.stringContaining('main has 3 ancestors, so main~4 names none')]);
    expect(await refused('')).toEqual(['', 'INVALID_ARGUMENT', expect.stringContaining('non-empty')]);
  });

  it('suggests the closest branch or tag for a mistyped one (did you mean)', async () => {
    const { repo } = await history();
    const err = await refusal(() => repo.resolve('mian~1'));
    expect(err.message).toMatch(/no branch, tag or snapshot "mian"; did you mean "main"\?; branches: main; tags: v1/);
    expect(isFloeError(err, 'NOT_FOUND') && err.details.suggestions).toEqual(['main']);
    const session = await refusal(() => repo.writableSession('mian'));
    expect(session.message).toContain("branch 'mian' does not exist; did you mean 'main'?");
    expect(isFloeError(session, 'NOT_FOUND') && session.details.suggestions).toEqual(['main']);
    expect((await refusal(() => repo.lookupTag('v2'))).message).toContain("did you mean 'v1'?");
  });

  it('takes a stored name whole before reading ~, ^ or @{ in it (names the reference could write)', async () => {
    const { backend, ids } = await history();
    const repo = await patched(backend, (info) => ({ ...info, branches: [...info.branches, { name: 'odd~1', snapshotId: parseSnapshotId(ids[1]!) }] }));
    expect(await repo.resolve('odd~1')).toMatchObject({ snapshotId: ids[1], version: { branch: 'odd~1' } });
    expect((await repo.resolve('odd~1~1')).snapshotId).toBe(ids[0]);
  });
});
