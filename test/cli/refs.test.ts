// Issue 20, stage 2: the CLI takes refs, options and dates as git users expect. Each test is one
// surprise from the issue: abbreviated ids and as-of refs, global options before the command,
// "did you mean", `import` of an implicit root group with --branch/--path, strict dates, and
// `expire --dry-run`. All in-process against repositories in temporary directories.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createArray, openStore } from '../../src/engine/api.ts';
import { ZarrArray } from '../../src/engine/array.ts';
import { FsStorage } from '../../src/engine/storage/fs.ts';
import { asSnapshotId, parseSnapshotId } from '../../src/format/icechunk/ids.ts';
import { REPO_INFO_KEY } from '../../src/format/icechunk/keys.ts';
import { decodeRepoInfo, encodeRepoInfo } from '../../src/format/icechunk/repo-info.ts';
import { FakeClock } from '../../src/testing/fake-clock.ts';
import { Repository, Storage } from '../../src/txn/index.ts';
import { createRepositoryServer } from '../../src/cli/serve/repository-server.ts';
import { floe, removeTempDirs, sampleRepository, tempDir, type CliResult } from './helpers.ts';

afterAll(removeTempDirs);

const DAY = 86_400_000;
const START = Date.UTC(2026, 0, 1, 12);

/** A repository whose commits are a day apart from 2026-01-01 noon: init, one, two, three; /a holds the commit number. */
async function datedRepository(dir: string): Promise<{ repoPath: string; ids: string[] }> {
  const repoPath = path.join(dir, 'dated.icechunk');
  const clock = new FakeClock({ startMs: START });
  const repo = await Repository.create(Storage.newLocalFilesystem(repoPath), {}, 2, {}, { clock });
  const ids = [await repo.lookupBranch('main')];
  for (let n = 1; n <= 3; n++) {
    clock.advance(DAY);
    const session = await repo.writableSession('main');
    const a = n === 1 ? await ZarrArray.create(session.store, '/a', { shape: [2], chunkShape: [2], dataType: 'int32', fillValue: 0 }) : await ZarrArray.open(session.store, '/a');
    await a.set(undefined, n);
    ids.push(await session.commit(`commit ${n}`));
  }
  return { repoPath, ids };
}

/** sha256 of every file under `dir`, by relative path: what "changes nothing" is checked against. */
function checksums(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (at: string) => {
    for (const name of readdirSync(at)) {
      const full = path.join(at, name);
      if (statSync(full).isDirectory()) walk(full);
      else out[path.relative(dir, full)] = createHash('sha256').update(readFileSync(full)).digest('hex');
    }
  };
  walk(dir);
  return out;
}

const oneLine = (r: CliResult) => r.stderr.trim().split('\n');

let dir: string;
let sample: Awaited<ReturnType<typeof sampleRepository>>;
let dated: Awaited<ReturnType<typeof datedRepository>>;

beforeAll(async () => {
  dir = tempDir('floe-refs-');
  sample = await sampleRepository(dir);
  dated = await datedRepository(dir);
});

const cli = (...argv: string[]) => floe([...argv, '--repo', sample.repoPath], { cwd: dir });
const datedCli = (...argv: string[]) => floe([...argv, '--repo', dated.repoPath], { cwd: dir });

describe('refs like git', () => {
  it('a unique id prefix works wherever a snapshot id does', async () => {
    const prefix = sample.tip.slice(0, 6);
    const show = await cli('show', `${prefix}:/weather`);
    expect([show.code, show.stderr]).toEqual([0, '']);
    expect(show.stdout).toContain(`group /weather in ${prefix} @ ${sample.tip}`);
    expect(JSON.parse((await cli('ls', prefix.toLowerCase(), '--json')).stdout)).toMatchObject({ snapshotId: sample.tip });
    expect((await cli('diff', sample.v1.slice(0, 5), prefix)).stdout).toContain('~ chunks   /weather/temperature: 1 of 6 chunks changed [0,0,0]');
    expect((await cli('tag', 'create', 'by-prefix', prefix)).stdout).toBe(`created tag by-prefix at ${sample.tip}\n`);
    const tooShort = await cli('log', sample.tip.slice(0, 3));
    expect([tooShort.code, oneLine(tooShort)]).toEqual([1, [expect.stringContaining('a snapshot id prefix needs at least 4 characters')]]);
  });

  it('main^, main~N and REF@{DATE} resolve like git, in targets too', async () => {
    const [, one, two] = dated.ids as [string, string, string, string];
    const log = JSON.parse((await datedCli('log', 'main^', '--json')).stdout) as { id: string }[];
    expect(log.map((s) => s.id)).toEqual(dated.ids.slice(0, 3).reverse());
    expect(JSON.parse((await datedCli('log', 'main@{2026-01-03}', '-n', '1', '--json')).stdout)).toMatchObject([{ id: one }]);
    const cat = await datedCli('cat', 'main@{2026-01-03T12:00:00Z}:/a', '--json');
    expect([cat.code, cat.stderr]).toEqual([0, '']);
    expect(JSON.parse(cat.stdout)).toMatchObject({ data: [2, 2] });
    expect((await datedCli('cat', 'main~2:/a[0]')).stdout).toBe('1\n');
    expect((await datedCli('branch', 'create', 'then', 'main@{2026-01-03T13:00:00+01:00}')).stdout).toBe(`created branch then at ${two}\n`);
    const impossible = await datedCli('log', 'main@{2026-02-30}');
    expect([impossible.code, oneLine(impossible)]).toEqual([1, [expect.stringMatching(/^floe log: INVALID_ARGUMENT: .*February 2026 has 28 days, not 30/)]]);
  });

  it('an ambiguous prefix fails with every candidate on one line', async () => {
    const work = tempDir('floe-refs-ambiguous-');
    const { repoPath, tip } = await sampleRepository(work);
    const twin = Uint8Array.from(parseSnapshotId(tip));
    twin[11] = twin[11]! ^ 0x01;
    const backend = new FsStorage({ root: repoPath });
    const info = decodeRepoInfo((await backend.get(REPO_INFO_KEY))!.bytes);
    const original = info.snapshots.find((s) => Buffer.from(s.id).equals(Buffer.from(parseSnapshotId(tip))))!;
    await backend.put(REPO_INFO_KEY, encodeRepoInfo({ ...info, snapshots: [...info.snapshots, { ...original, id: asSnapshotId(twin), message: 'twin' }] }));
    const r = await floe(['show', `${tip.slice(0, 8)}:/`, '--repo', repoPath], { cwd: work });
    expect(r.code).toBe(1);
    expect(oneLine(r)).toHaveLength(1);
    expect(r.stderr).toMatch(new RegExp(`^floe show: AMBIGUOUS: snapshot id prefix ${tip.slice(0, 8)} is ambiguous: 2 snapshots start with it: .*${tip}.*; give more characters`));
  });

  it('a snapshot reached through a branch is not served as immutable; a full id is', async () => {
    const repo = await Repository.open(Storage.newLocalFilesystem(dated.repoPath));
    const server = createRepositoryServer(repo);
    const base = await server.listen(0, '127.0.0.1');
    try {
      const cache = async (ref: string) => {
        const res = await fetch(`${base}/${encodeURIComponent(ref)}/a/zarr.json`);
        return [ref, res.status, res.headers.get('cache-control')];
      };
      expect(await cache('main~1')).toEqual(['main~1', 200, 'no-cache']);
      expect(await cache(dated.ids[2]!.slice(0, 6))).toEqual([dated.ids[2]!.slice(0, 6), 200, 'no-cache']);
      expect(await cache(dated.ids[2]!)).toEqual([dated.ids[2]!, 200, 'public, max-age=31536000, immutable']);
    } finally {
      await server.close();
    }
  });
});

describe('options like git', () => {
  it('global options work before the command as well as after it', async () => {
    const before = await floe(['--repo', sample.repoPath, '--json', 'branch'], { cwd: dir });
    expect([before.code, before.stderr]).toEqual([0, '']);
    expect(JSON.parse(before.stdout)).toEqual([{ name: 'main', snapshotId: sample.tip }]);
    const mixed = await floe([`--repo=${sample.repoPath}`, 'log', '-n', '1', '--json'], { cwd: dir });
    expect(JSON.parse(mixed.stdout)).toMatchObject([{ id: sample.tip }]);
    const help = await floe(['-h', 'log'], { cwd: dir });
    expect([help.code, help.stdout.split('\n')[0]]).toEqual([0, 'usage: floe log [ref] [-n COUNT]']);
    const misplaced = await floe(['-n', '1', 'log', '--repo', sample.repoPath], { cwd: dir });
    expect([misplaced.code, misplaced.stdout, oneLine(misplaced)]).toEqual([2, '', [expect.stringContaining('-n is not a global option')]]);
  });

  it('a mistyped command, option or ref gets a "did you mean"', async () => {
    const command = await floe(['improt', 'x'], { cwd: dir });
    expect([command.code, oneLine(command)]).toEqual([2, ['floe: unknown command "improt"; did you mean "import"?; run `floe help` for the list']]);
    const topic = await floe(['help', 'stauts'], { cwd: dir });
    expect([topic.code, topic.stderr]).toEqual([2, expect.stringContaining('did you mean "status"?')]);
    const option = await cli('log', '--jsno');
    expect([option.code, oneLine(option)]).toEqual([2, ['floe log: unknown option --jsno; did you mean --json?; see `floe log --help`']]);
    const expireOption = await cli('expire', '--older-then', '1d');
    expect(oneLine(expireOption)).toEqual([expect.stringContaining('did you mean --older-than?')]);
    const ref = await cli('log', 'mian');
    expect([ref.code, oneLine(ref)]).toEqual([1, [expect.stringMatching(/^floe log: NOT_FOUND: no branch, tag or snapshot "mian"; did you mean "main"\?/)]]);
    const tag = await cli('cat', 'v2:/weather/lat');
    expect(oneLine(tag)).toEqual([expect.stringContaining('did you mean "v1"?')]);
  });
});

describe('import', () => {
  /** A Zarr v3 store without a root zarr.json: /t, and /sub/deep/x under two implicit groups. */
  async function implicitStore(at: string): Promise<void> {
    const store = openStore(at);
    const t = await createArray(store, '/t', { shape: [4], chunkShape: [2], dataType: 'float64', fillValue: 0 });
    await t.set(undefined, Float64Array.of(1, 2, 3, 4));
    await createArray(store, '/sub/deep/x', { shape: [1], chunkShape: [1], dataType: 'uint8', fillValue: 7 });
    expect(['zarr.json', 'sub/zarr.json', 'sub/deep/zarr.json'].map((k) => existsSync(path.join(at, k)))).toEqual([false, false, false]);
  }

  it('imports a store whose root is an implicit group, making its implicit groups explicit', async () => {
    const work = tempDir('floe-import-');
    await implicitStore(path.join(work, 'implicit.zarr'));
    const repoPath = path.join(work, 'r.icechunk');
    await Repository.create(Storage.newLocalFilesystem(repoPath));
    const imported = await floe(['import', 'implicit.zarr', '--repo', repoPath, '--json'], { cwd: work });
    expect([imported.code, imported.stderr.includes('floe import:')]).toEqual([0, false]);
    expect((JSON.parse(imported.stdout) as { summary: string; path: string })).toMatchObject({ path: '/implicit', summary: '2 nodes, 2 chunks, 3 implicit groups made explicit' });
    const ls = JSON.parse((await floe(['ls', 'main', '/implicit', '--repo', repoPath, '--json'], { cwd: work })).stdout) as { nodes: { path: string; kind: string }[] };
    expect(ls.nodes.map((n) => `${n.kind} ${n.path}`)).toEqual([
      'group /implicit', 'group /implicit/sub', 'group /implicit/sub/deep', 'array /implicit/sub/deep/x', 'array /implicit/t',
    ]);
    expect((await floe(['cat', 'main:/implicit/t', '--repo', repoPath], { cwd: work })).stdout).toBe('[1. 2. 3. 4.]\n');
  });

  it('--branch and --path are separate; --into keeps only its unambiguous forms', async () => {
    const work = tempDir('floe-import-');
    await implicitStore(path.join(work, 'src.zarr'));
    const repoPath = path.join(work, 'r.icechunk');
    const repo = await Repository.create(Storage.newLocalFilesystem(repoPath));
    await repo.createBranch('dev', await repo.lookupBranch('main'));
    const run = (...argv: string[]) => floe(['import', 'src.zarr', '--repo', repoPath, ...argv], { cwd: work });
    const onDev = await run('--branch', 'dev', '--path', 'data/main', '--json');
    expect(JSON.parse(onDev.stdout)).toMatchObject({ branch: 'dev', path: '/data/main' });
    expect((await floe(['cat', 'dev:/data/main/t[1]', '--repo', repoPath], { cwd: work })).stdout).toBe('2.\n');
    expect((await floe(['ls', '--repo', repoPath, '--json'], { cwd: work })).stdout).not.toContain('/data');
    const ambiguous = await run('--into', 'main');
    expect([ambiguous.code, oneLine(ambiguous)]).toEqual([2, [expect.stringContaining('--into "main" is ambiguous: a branch or a path? write --branch main (path: the store\'s name) or --path /main (branch: main)')]]);
    const both = await run('--into', 'main:/x', '--path', '/y');
    expect([both.code, oneLine(both)]).toEqual([2, [expect.stringContaining('give either --into or --branch/--path')]]);
    expect(JSON.parse((await run('--into', 'dev:/old/form', '--json')).stdout)).toMatchObject({ branch: 'dev', path: '/old/form' });
    expect(JSON.parse((await run('--into', 'old/path', '--json')).stdout)).toMatchObject({ branch: 'main', path: '/old/path' });
    const typo = await run('--branch', 'mian');
    expect([typo.code, oneLine(typo)]).toEqual([1, [expect.stringContaining("branch 'mian' does not exist; did you mean 'main'?")]]);
  });
});

describe('expire: strict dates, no future, --dry-run', () => {
  const clock = new FakeClock({ startMs: Date.UTC(2026, 5, 1) }); // "now" is 2026-06-01
  const expire = (repoPath: string, ...argv: string[]) => floe(['expire', ...argv, '--repo', repoPath], { cwd: dir, clock });

  it('refuses impossible dates, times without a zone and cutoffs in the future, changing nothing', async () => {
    const work = tempDir('floe-expire-');
    const { repoPath } = await datedRepository(work);
    const before = checksums(repoPath);
    const cases: [string, RegExp][] = [
      ['2026-02-30', /--older-than "2026-02-30" is not a real date: February 2026 has 28 days, not 30/],
      ['2026-04-31', /April 2026 has 30 days, not 31/],
      ['2026-01-03T00:00:00', /a time needs a zone/],
      ['2026-13-01', /there is no month 13/],
      ['next tuesday', /is not an ISO 8601 date.*or give an age such as 7d/],
      ['2026-07-01', /--older-than 2026-07-01 is in the future \(now is 2026-06-01T00:00:00.000Z\)/],
    ];
    for (const [given, message] of cases) {
      const r = await expire(repoPath, '--older-than', given);
      expect([given, r.code, r.stdout, oneLine(r)]).toEqual([given, 2, '', [expect.stringMatching(message)]]);
    }
    expect(checksums(repoPath)).toEqual(before);
  });

  it('--dry-run prints what would go and changes no byte; the real run then does exactly that', async () => {
    const work = tempDir('floe-expire-');
    const { repoPath, ids } = await datedRepository(work);
    const [, one, two] = ids as [string, string, string, string];
    const before = checksums(repoPath);
    const dry = await expire(repoPath, '--older-than', '2026-01-03T12:00:01Z', '--dry-run');
    expect([dry.code, dry.stderr]).toEqual([0, '']);
    const line: Record<string, string> = { [one]: `  ${one}  2026-01-02T12:00:00.000Z  commit 1`, [two]: `  ${two}  2026-01-03T12:00:00.000Z  commit 2` };
    expect(dry.stdout).toBe([
      'would expire 2 snapshots older than 2026-01-03T12:00:01.000Z; would re-parent 1',
      ...[one, two].sort().map((id) => line[id]),
      'dry run: nothing was changed',
      '',
    ].join('\n'));
    const dryJson = JSON.parse((await expire(repoPath, '--older-than', '2026-01-03T12:00:01Z', '--dry-run', '--json')).stdout) as { dryRun: boolean; releasedSnapshots: string[] };
    expect(dryJson).toMatchObject({ dryRun: true, releasedSnapshots: [one, two].sort() });
    expect(checksums(repoPath)).toEqual(before);
    const real = JSON.parse((await expire(repoPath, '--older-than', '2026-01-03T12:00:01Z', '--json')).stdout) as { releasedSnapshots: string[] };
    expect(real.releasedSnapshots).toEqual(dryJson.releasedSnapshots);
    expect(checksums(repoPath)).not.toEqual(before);
  });
});
