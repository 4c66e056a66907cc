// Issue 20, as a user meets it: after every command on a SQLite repository the directory holds
// only `repo.db` (no -wal, no -shm), SQLite finds it intact, and a copy of that file alone has every
// commit. `floe init` and the read commands refuse what is not a Floe repository and leave it as
// it was: a Zarr store or any other files in a directory, another application's database, a text
// file. In-process runs (the CLI's `run`), so each command's close is what is tested.
import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createArray, openStore } from '../../src/engine/api.ts';
import { floe, removeTempDirs, tempDir, type CliResult } from './helpers.ts';

afterAll(removeTempDirs);

const sha256 = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');
/** Every name in a directory, recursively, sorted. */
const listing = (dir: string) => (readdirSync(dir, { recursive: true }) as string[]).sort();

function integrity(file: string): string {
  const db = new Database(file, { fileMustExist: true });
  try {
    return db.pragma('integrity_check', { simple: true }) as string;
  } finally {
    db.close();
  }
}

/** Exit code, and the one stderr line of a failure. */
const outcome = (r: CliResult) => ({ code: r.code, error: r.stderr.trim() });

describe('a SQLite repository is one intact file after every command', () => {
  let work: string;
  let repoDir: string;
  let repo: string;
  beforeAll(async () => {
    work = tempDir();
    const store = openStore(path.join(work, 'temps.zarr'));
    const t = await createArray(store, '/', { shape: [3, 4], chunkShape: [2, 2], dataType: 'float32', fillValue: 0, dimensionNames: ['y', 'x'] });
    await t.set(undefined, Float32Array.from({ length: 12 }, (_, i) => i / 2));
    repoDir = path.join(work, 'repo');
    repo = path.join(repoDir, 'repo.db');
  });

  it('init, import, read commands, refs and a failing command each leave only repo.db', async () => {
    const cli = (...argv: string[]) => floe([...argv, '--repo', repo], { cwd: work });
    const steps: string[][] = [
      ['init', '--storage', 'sqlite'],
      ['import', 'temps.zarr', '-m', 'temperatures'],
      ['log'],
      ['ls'],
      ['show', 'main:/temps'],
      ['cat', 'main:/temps[1]', '--json'],
      ['query', '.from("/temps").whereIndex("y", 0, 2)', '--json'],
      ['explain', '.from("/temps")'],
      ['status', '--json'],
      ['branch', 'create', 'dev'],
      ['tag', 'create', 'v1', 'main'],
      ['diff', 'v1', 'main'],
      ['check'],
      ['config', 'show'],
    ];
    for (const argv of steps) {
      const r = await cli(...argv);
      expect(r.code, `${argv.join(' ')}: ${r.stderr}`).toBe(0);
      expect(listing(repoDir), argv.join(' ')).toEqual(['repo.db']);
      expect(integrity(repo), argv.join(' ')).toBe('ok');
      expect(listing(repoDir), `${argv.join(' ')} (after the check)`).toEqual(['repo.db']);
    }
    const cat = JSON.parse((await cli('cat', 'main:/temps[1]', '--json')).stdout) as { data: number[] };
    expect(cat.data).toEqual([2, 2.5, 3, 3.5]);

    const missing = await cli('cat', 'main:/nothing');
    expect(missing.code).toBe(1);
    expect(listing(repoDir)).toEqual(['repo.db']); // closed on failure too
  });

  it('a copy of repo.db alone has every commit and ref', async () => {
    const elsewhere = path.join(tempDir(), 'copy.db');
    copyFileSync(repo, elsewhere);
    const log = async (file: string) => JSON.parse((await floe(['log', '--json', '--repo', file], { cwd: work })).stdout) as { id: string; message: string }[];
    const original = await log(repo);
    expect(original.map((s) => s.message)).toEqual(['temperatures', 'Repository initialized']);
    expect(await log(elsewhere)).toEqual(original);
    const tags = await floe(['tag', '--json', '--repo', elsewhere], { cwd: work });
    expect(tags.stdout).toContain('v1');
  });
});

describe('floe init never writes into what is not ours', () => {
  it('refuses a directory holding a Zarr store or other files, unchanged, and writes into it with --force', async () => {
    const work = tempDir();
    const stores: [string, string, RegExp][] = [
      ['v3.zarr', 'zarr.json', /a Zarr v3 store \(zarr\.json\)/],
      ['v2.zarr', '.zgroup', /a Zarr v2 store \(\.zgroup\)/],
      ['notes', 'readme.txt', /1 entry \(readme\.txt\)/],
    ];
    for (const [dir, file, found] of stores) {
      mkdirSync(path.join(work, dir));
      writeFileSync(path.join(work, dir, file), '{"zarr_format": 3, "node_type": "group"}');
      const r = await floe(['init', '--repo', dir], { cwd: work });
      expect(outcome(r).code, r.stderr).toBe(1);
      expect(r.stderr).toMatch(/^floe init: NOT_A_REPOSITORY: .* holds .* and no Floe repository; .*--force/);
      expect(r.stderr).toMatch(found);
      expect(listing(path.join(work, dir))).toEqual([file]);
    }
    const forced = await floe(['init', '--repo', 'notes', '--force'], { cwd: work });
    expect(forced.code, forced.stderr).toBe(0);
    expect(listing(path.join(work, 'notes'))).toEqual(expect.arrayContaining(['readme.txt', 'repo', 'snapshots']));
  });

  it('an empty or new directory is fine; an existing repository is ALREADY_EXISTS', async () => {
    const work = tempDir();
    mkdirSync(path.join(work, 'empty'));
    for (const dir of ['empty', 'new/nested']) expect((await floe(['init', '--repo', dir], { cwd: work })).code).toBe(0);
    const again = await floe(['init', '--repo', 'empty'], { cwd: work });
    expect(again.stderr).toMatch(/^floe init: ALREADY_EXISTS/);
    const sqlite = await floe(['init', '--storage', 'sqlite', '--repo', 'r.db'], { cwd: work });
    expect(sqlite.code).toBe(0);
    expect((await floe(['init', '--repo', 'r.db'], { cwd: work })).stderr).toMatch(/^floe init: ALREADY_EXISTS/);
  });

  it('a new path named like a database file is a SQLite repository without --storage', async () => {
    const work = tempDir();
    for (const name of ['plain.db', 'other.sqlite', 'third.SQLITE3']) {
      const r = await floe(['init', '--repo', name], { cwd: work });
      expect(r.stdout, r.stderr).toMatch(/^created an empty sqlite repository at /);
      expect(statSync(path.join(work, name)).isFile()).toBe(true);
      expect(integrity(path.join(work, name))).toBe('ok');
    }
    expect((await floe(['init', '--repo', 'plain.icechunk'], { cwd: work })).stdout).toMatch(/^created an empty file repository/);
    expect(readdirSync(work).sort()).toEqual(['other.sqlite', 'plain.db', 'plain.icechunk', 'third.SQLITE3']);
  });

  it('refuses another application\'s database and a text file, byte for byte unchanged; --force adds Floe\'s tables only to the database', async () => {
    const work = tempDir();
    const foreign = path.join(work, 'their.db');
    const db = new Database(foreign);
    db.exec("CREATE TABLE orders (id INTEGER); INSERT INTO orders VALUES (42)");
    db.close();
    const text = path.join(work, 'notes.txt');
    writeFileSync(text, 'not a database\n'.repeat(50));
    const before = [sha256(foreign), sha256(text)];
    const attempts = [
      floe(['init', '--storage', 'sqlite', '--repo', 'their.db'], { cwd: work }),
      floe(['init', '--repo', 'their.db'], { cwd: work }),
      floe(['log', '--repo', 'their.db'], { cwd: work }),
      floe(['status', '--repo', 'their.db'], { cwd: work }),
    ];
    for (const r of await Promise.all(attempts)) {
      expect(outcome(r).code).toBe(1);
      expect(r.stderr).toMatch(/^floe [a-z]+: NOT_A_REPOSITORY: .*their\.db is a SQLite database of another application \(tables: orders\)/);
    }
    for (const argv of [['init', '--repo', 'notes.txt'], ['init', '--repo', 'notes.txt', '--force'], ['log', '--repo', 'notes.txt']]) {
      const r = await floe(argv, { cwd: work });
      expect(r.stderr).toMatch(/^floe [a-z]+: NOT_A_REPOSITORY: .*notes\.txt is a file that is not a SQLite database/);
    }
    expect([sha256(foreign), sha256(text)]).toEqual(before);
    expect(listing(work)).toEqual(['notes.txt', 'their.db']);

    const forced = await floe(['init', '--repo', 'their.db', '--force'], { cwd: work });
    expect(forced.code, forced.stderr).toBe(0);
    const claimed = new Database(foreign);
    expect(claimed.prepare('SELECT id FROM orders').all()).toEqual([{ id: 42 }]);
    claimed.close();
    expect((await floe(['log', '--repo', 'their.db'], { cwd: work })).code).toBe(0);
    expect(listing(work)).toEqual(['notes.txt', 'their.db']);
  });

  it('--help documents --force', async () => {
    const help = await floe(['init', '--help'], { cwd: tempDir() });
    expect(help.stdout).toMatch(/--force +write the repository even where other data is/);
  });
});
