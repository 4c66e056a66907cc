// Every array of every reference repository reads, through Floe's session store and ZarrArray,
// to the values the reference produced (expected/*.json). Virtual chunks point at an
// s3://testbucket that does not exist here: reading them must fail with a clear error, and the
// values of every other chunk must still match.
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isFloeError } from '../../src/errors.ts';
import { ZarrArray } from '../../src/engine/array.ts';
import { openNode } from '../../src/engine/group.ts';
import { slice } from '../../src/engine/selection.ts';
import { currentChunkRefs } from '../../src/txn/node-view.ts';
import { Repository, Storage, type Session } from '../../src/txn/index.ts';
import { fixturePath } from '../support/fixtures.ts';

const REPOS = ['test-repo-v1', 'test-repo-v2', 'test-repo-v2-migrated', 'split-repo-v2', 'expire-repo-v2-by-2.0.5'];

interface ExpectedNode {
  type: 'group' | 'array';
  attributes?: Record<string, unknown>;
  shape?: number[];
  chunk_refs?: Record<string, number>;
  values?: string[];
  distinct_values?: string[];
  first_col?: string[];
}
interface ExpectedRef {
  snapshot: string;
  message: string;
  nodes: Record<string, ExpectedNode>;
}

const scratch = mkdtempSync(path.join(tmpdir(), 'floe-conformance-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** A private copy: the fixtures stay untouched whatever the backend does. */
let copies = 0;
function openCopy(repo: string): Promise<Repository> {
  const dir = path.join(scratch, `${repo}-${copies++}`);
  cpSync(fixturePath('icechunk/repos', repo), dir, { recursive: true });
  return Repository.open(Storage.newLocalFilesystem(dir));
}

const text = (v: unknown): string => (typeof v === 'number' && Number.isNaN(v) ? 'NaN' : String(v));

function sessionOptions(refName: string) {
  const [kind, ...rest] = refName.split(':');
  const name = rest.join(':');
  return kind === 'branch' ? { branch: name } : { tag: name };
}

async function chunkKinds(session: Session, nodePath: string): Promise<{ counts: Record<string, number>; virtual: Set<string> }> {
  const node = session.view().nodeAt(nodePath)!;
  const refs = await currentChunkRefs(session.objects, session.changes, node);
  const counts: Record<string, number> = {};
  const virtual = new Set<string>();
  for (const ref of refs) {
    counts[ref.kind] = (counts[ref.kind] ?? 0) + 1;
    if (ref.kind === 'virtual') virtual.add(ref.index.join(','));
  }
  return { counts, virtual };
}

describe.each(REPOS)('%s', (repo) => {
  const expected = JSON.parse(readFileSync(fixturePath('icechunk/expected', `${repo}.json`), 'utf8')) as Record<string, ExpectedRef>;

  it.each(Object.entries(expected))('%s reads to the expected nodes and values', async (refName, want) => {
    const repository = await openCopy(repo);
    const session = await repository.readonlySession(sessionOptions(refName));
    expect(session.snapshotId).toBe(want.snapshot);
    for (const [nodePath, node] of Object.entries(want.nodes)) {
      const opened = await openNode(session.store, nodePath);
      expect(opened instanceof ZarrArray ? 'array' : 'group', nodePath).toBe(node.type);
      if (!(opened instanceof ZarrArray)) {
        expect(opened.attributes, nodePath).toEqual(node.attributes ?? {});
        continue;
      }
      expect([...opened.shape], nodePath).toEqual(node.shape);
      const { counts, virtual } = await chunkKinds(session, nodePath);
      expect(counts, nodePath).toEqual(node.chunk_refs ?? {});
      if (virtual.size > 0) {
        // The whole array touches the virtual chunk: a clear refusal, not wrong data.
        const err = await opened.get().catch((e: unknown) => e);
        expect(isFloeError(err, 'UNAUTHORIZED'), `${nodePath}: ${String(err)}`).toBe(true);
        expect(String((err as Error).message)).toMatch(/s3:\/\/testbucket/);
      } else if (node.values) {
        expect(Array.from((await opened.get()).data as ArrayLike<unknown>, text), nodePath).toEqual(node.values);
      }
      // Distinct values over every chunk that is not virtual.
      const distinct = new Set<string>();
      const grid = opened.shape.map((n, d) => Math.ceil(n / opened.chunkShape[d]!));
      const coords: number[][] = [];
      const walk = (prefix: number[]) => {
        if (prefix.length === grid.length) coords.push(prefix);
        else for (let i = 0; i < grid[prefix.length]!; i++) walk([...prefix, i]);
      };
      walk([]);
      for (const c of coords) {
        if (virtual.has(c.join(','))) continue;
        const region = c.map((i, d) => slice(i * opened.chunkShape[d]!, Math.min((i + 1) * opened.chunkShape[d]!, opened.shape[d]!)));
        for (const v of Array.from((await opened.get(region)).data as ArrayLike<unknown>)) distinct.add(text(v));
      }
      expect([...distinct].sort(), nodePath).toEqual([...(node.distinct_values ?? [])].sort());
      if (node.first_col) {
        const column = await opened.get([null, 0]).catch((e: unknown) => e);
        if (isFloeError(column)) expect(column.code, nodePath).toBe('UNAUTHORIZED');
        else expect(Array.from((column as { data: ArrayLike<unknown> }).data, text), nodePath).toEqual(node.first_col);
      }
    }
  });
});

describe('fixture repositories open with the right capabilities', () => {
  it('spec-1 repositories are read-only; spec-2 ones list their refs', async () => {
    const v1 = await openCopy('test-repo-v1');
    expect(v1.specVersion).toBe(1);
    expect(await v1.listBranches()).toEqual(['main', 'my-branch']);
    expect(await v1.listTags()).toEqual(['it also works!', 'it works!']);
    await expect(v1.writableSession('main')).rejects.toMatchObject({ code: 'READ_ONLY' });
    const v2 = await openCopy('test-repo-v2');
    expect(v2.specVersion).toBe(2);
    expect(await v2.listTags()).toEqual(['it also works!', 'it works!']);
    await expect(v2.createTag('deleted', await v2.lookupBranch('main'))).rejects.toMatchObject({ code: 'ALREADY_EXISTS' });
  });
});
