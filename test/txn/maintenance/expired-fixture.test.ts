// The repository the reference (Icechunk 2.0.5) expired and garbage-collected: Floe reads every
// ref, sees the shape expiry leaves (each ref's ancestry is its tip plus the initial snapshot),
// walks the whole ops log, and can expire + GC a copy again without losing a value. The ops
// log's backups keep the repo file just before and just after the reference's expiry: Floe's
// expiry of the first must give the second.
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ZarrArray } from '../../../src/engine/array.ts';
import { MemoryStorage } from '../../../src/engine/storage/memory.ts';
import { idToString } from '../../../src/format/icechunk/ids.ts';
import { decodeRepoInfo, type RepoInfo } from '../../../src/format/icechunk/repo-info.ts';
import { planExpiry } from '../../../src/txn/maintenance/index.ts';
import { Repository, Storage } from '../../../src/txn/index.ts';
import { fixturePath } from '../../support/fixtures.ts';
import { ancestryIds } from './helpers.ts';

const NAME = 'expire-repo-v2-by-2.0.5';
const INITIAL = '1CECHNKREP0F1RSTCMT0';
type Expected = Record<string, { snapshot: string; nodes: Record<string, { type: string; first_col?: string[]; values?: string[] }> }>;
const expected = JSON.parse(readFileSync(fixturePath('icechunk', 'expected', `${NAME}.json`), 'utf8')) as Expected;
const scratch = mkdtempSync(path.join(tmpdir(), 'floe-expired-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const versionOf = (ref: string) => (ref.startsWith('branch:') ? { branch: ref.slice(7) } : { tag: ref.slice(4) });

async function checkEveryRef(repo: Repository): Promise<void> {
  for (const [ref, want] of Object.entries(expected)) {
    const session = await repo.readonlySession(versionOf(ref));
    expect(session.snapshotId, ref).toBe(want.snapshot);
    for (const [nodePath, node] of Object.entries(want.nodes)) {
      if (node.type !== 'array') continue;
      const data = Array.from((await (await ZarrArray.open(session.store, nodePath)).get()).data as ArrayLike<number>, String);
      if (node.values) expect(data, `${ref} ${nodePath}`).toEqual(node.values);
      if (node.first_col) {
        const columns = data.length / node.first_col.length;
        expect(node.first_col.map((_, i) => data[i * columns]), `${ref} ${nodePath}`).toEqual(node.first_col);
      }
    }
  }
}

describe(`the reference-expired fixture ${NAME}`, () => {
  it('every ref reads its expected values; every ancestry is tip + initial', async () => {
    const repo = await Repository.open(Storage.newLocalFilesystem(fixturePath('icechunk', 'repos', NAME)));
    await checkEveryRef(repo);
    for (const ref of Object.keys(expected)) {
      expect(await ancestryIds(repo, versionOf(ref)), ref).toEqual([expected[ref]!.snapshot, INITIAL]);
    }
    const kinds = [];
    for await (const item of repo.opsLog()) kinds.push(item.update.kind);
    expect(kinds.slice(0, 2)).toEqual(['gcRan', 'expirationRan']);
    expect(kinds[kinds.length - 1]).toBe('repoInitialized');
    expect(kinds.length).toBe((await repo.repoInfo()).latestUpdates.length);
  });

  it('Floe expiry and GC on a copy change nothing a ref reads', async () => {
    const dir = path.join(scratch, 'copy');
    cpSync(fixturePath('icechunk', 'repos', NAME), dir, { recursive: true });
    const repo = await Repository.open(Storage.newLocalFilesystem(dir));
    const result = await repo.expireSnapshots(new Date());
    expect(result.releasedSnapshots).toEqual([]); // already expired: every snapshot is a kept tip or the root
    const summary = await repo.garbageCollect(new Date(), { allowShortGrace: true });
    expect(summary.deleted.chunks.objects).toBe(0); // the reference's GC left no garbage chunks
    await checkEveryRef(repo);
  });

  describe('Floe expiry of the pre-expiry backup reproduces the reference', () => {
    const root = fixturePath('icechunk', 'repos', NAME);
    const read = (key: string) => new Uint8Array(readFileSync(path.join(root, key)));
    // Found through the ops log, not by name: the current file's ExpirationRan entry names the
    // file that update left (post), and post's entry below it names the file before (pre).
    const current = decodeRepoInfo(read('repo'));
    const postKey = `overwritten/${current.latestUpdates.find((u) => u.update.kind === 'expirationRan')!.backupPath}`;
    const post = decodeRepoInfo(read(postKey));
    const preKey = `overwritten/${post.latestUpdates[1]!.backupPath}`;
    const pre = decodeRepoInfo(read(preKey));
    const flushedAt = (id: string) => pre.snapshots.find((s) => idToString(s.id) === id)!.flushedAt;
    const withoutLog = ({ latestUpdates, repoBeforeUpdates, ...rest }: RepoInfo) => (void latestUpdates, void repoBeforeUpdates, rest);
    const names = (info: RepoInfo) => ({
      branches: info.branches.map((b) => `${b.name}@${idToString(b.snapshotId)}`),
      tags: info.tags.map((t) => `${t.name}@${idToString(t.snapshotId)}`),
      snapshots: info.snapshots.map((s) => `${idToString(s.id)}<${s.parentId ? idToString(s.parentId) : ''}`),
    });

    it('the backups are the ones the auditor named, one update apart', () => {
      expect(postKey).toBe('overwritten/repo.30722570273471.F20Q7TNMEJQR7GWEXQQ0');
      expect(preKey).toBe('overwritten/repo.30722570273472.YGCJ9D24XR87PA7F2DMG');
      expect(post.latestUpdates[0]).toMatchObject({ update: { kind: 'expirationRan' }, backupPath: null });
      expect(pre.latestUpdates[0]).toMatchObject({ update: { kind: 'newCommit' }, backupPath: null });
      expect(post.latestUpdates.slice(1).map((u) => u.updatedAt)).toEqual(pre.latestUpdates.map((u) => u.updatedAt));
    });

    // The reference's cutoff is not recorded; every cutoff between doomed2's tip (the newest
    // snapshot it expired) and feature's tip (the oldest it kept unexpired) gives its outcome.
    const window = () => [flushedAt('XVV0P9EHTNNF740J9HR0') + 1, flushedAt('PS920CK1TCPSMXZM4NTG'), flushedAt('WMG872B6YG9RQE55G5P0')];

    it('planExpiry with deleteExpiredBranches gives the reference file exactly, for any cutoff in its window', () => {
      for (const cutoff of window()) {
        const plan = planExpiry(pre, cutoff, { deleteExpiredBranches: true });
        expect(withoutLog(plan.info), String(cutoff)).toEqual(withoutLog(post));
        expect(plan.result).toEqual({
          releasedSnapshots: ['4PMN5F6KCC714YXHWVFG', 'NEHF9XZ9FPCPGJSBX6MG', 'S6WSWDGXH2Q79225GZ80', 'XVV0P9EHTNNF740J9HR0', 'ZXSK5YCFC31AKZBKANW0'],
          editedSnapshots: ['PS920CK1TCPSMXZM4NTG', 'WMG872B6YG9RQE55G5P0'],
          deletedBranches: ['doomed2'],
          deletedTags: [],
        });
      }
      expect(names(post)).toEqual({
        branches: ['feature@WMG872B6YG9RQE55G5P0', 'main@PS920CK1TCPSMXZM4NTG'],
        tags: ['protect-b@7C9HZPBDGDT2ESN0PCN0'],
        snapshots: ['1CECHNKREP0F1RSTCMT0<', '7C9HZPBDGDT2ESN0PCN0<1CECHNKREP0F1RSTCMT0', 'PS920CK1TCPSMXZM4NTG<1CECHNKREP0F1RSTCMT0', 'WMG872B6YG9RQE55G5P0<1CECHNKREP0F1RSTCMT0'],
      });
    });

    it('other cutoffs and flags do not (the comparison can fail)', () => {
      const [low, , high] = window();
      const differs = (cutoff: number, options: Parameters<typeof planExpiry>[2]) => expect(withoutLog(planExpiry(pre, cutoff, options).info)).not.toEqual(withoutLog(post));
      differs(low! - 1, { deleteExpiredBranches: true }); // doomed2 not expired yet
      differs(high! + 1, { deleteExpiredBranches: true }); // feature expired and deleted
      differs(low!, {}); // doomed2 kept
      differs(low!, { deleteExpiredBranches: true, deleteExpiredTags: true }); // protect-b deleted
    });

    it('through the compare-and-swap: the repo file equals the reference one but for its new entry\'s time and backup name', async () => {
      const backend = new MemoryStorage();
      await backend.put('repo', read(preKey));
      const repo = await Repository.open(Storage.fromObjectStorage(backend));
      await repo.expireSnapshots(new Date(Math.ceil(window()[1]! / 1000)), { deleteExpiredBranches: true });
      const ours = decodeRepoInfo((await backend.get('repo'))!.bytes);
      expect(withoutLog(ours)).toEqual(withoutLog(post));
      expect(ours.latestUpdates).toHaveLength(post.latestUpdates.length);
      expect(ours.latestUpdates[0]).toMatchObject({ update: post.latestUpdates[0]!.update, backupPath: null });
      // Our backup of the pre-expiry file has a fresh random name and the same bytes.
      const backup = ours.latestUpdates[1]!.backupPath!;
      expect(backup).toMatch(/^repo\.\d{14}\.[0-9A-Z]{20}$/);
      expect((await backend.get(`overwritten/${backup}`))!.bytes).toEqual(read(preKey));
      expect(ours.latestUpdates.slice(1).map((u, i) => (i === 0 ? { ...u, backupPath: null } : u))).toEqual(pre.latestUpdates);
      expect(ours.repoBeforeUpdates).toBe(post.repoBeforeUpdates);
    });
  });
});
