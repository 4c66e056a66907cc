// The repository the reference (Icechunk 2.0.5) expired and garbage-collected: Floe reads every
// ref, sees the shape expiry leaves (each ref's ancestry is its tip plus the initial snapshot),
// walks the whole ops log, and can expire + GC a copy again without losing a value.
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ZarrArray } from '../../../src/engine/array.ts';
import { Repository, Storage } from '../../../src/txn/index.ts';
import { conformancePath } from '../../support/shared.ts';
import { ancestryIds } from './helpers.ts';

const NAME = 'expire-repo-v2-by-2.0.5';
const INITIAL = '1CECHNKREP0F1RSTCMT0';
type Expected = Record<string, { snapshot: string; nodes: Record<string, { type: string; first_col?: string[]; values?: string[] }> }>;
const expected = JSON.parse(readFileSync(conformancePath('icechunk', 'expected', `${NAME}.json`), 'utf8')) as Expected;
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
    const repo = await Repository.open(Storage.newLocalFilesystem(conformancePath('icechunk', 'repos', NAME)));
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
    cpSync(conformancePath('icechunk', 'repos', NAME), dir, { recursive: true });
    const repo = await Repository.open(Storage.newLocalFilesystem(dir));
    const result = await repo.expireSnapshots(new Date());
    expect(result.releasedSnapshots).toEqual([]); // already expired: every snapshot is a kept tip or the root
    const summary = await repo.garbageCollect(new Date());
    expect(summary.deleted.chunks.objects).toBe(0); // the reference's GC left no garbage chunks
    await checkEveryRef(repo);
  });
});
