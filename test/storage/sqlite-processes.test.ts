// Issue 20: several OS processes on one SQLite repository at once (WAL while open) still work,
// and when the last of them has closed, the repository is one intact file holding every commit.
// A process killed before closing leaves -wal and -shm; the next command folds them in.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { ZarrArray } from '../../src/engine/array.ts';
import { Repository, Storage } from '../../src/txn/index.ts';
import { floe } from '../cli/helpers.ts';

const scratch = mkdtempSync(path.join(tmpdir(), 'floe-sqlite-processes-'));
const children = new Set<ChildProcess>();
afterAll(() => {
  for (const child of children) child.kill('SIGKILL');
  rmSync(scratch, { recursive: true, force: true });
});
const CHILD = path.join(path.dirname(fileURLToPath(import.meta.url)), 'sqlite-child.ts');
const WORKERS = Number(process.env.FLOE_SQLITE_WORKERS ?? 4);
const COMMITS = Number(process.env.FLOE_SQLITE_COMMITS ?? 3);
const DEADLINE_MS = 60_000;

function start(args: string[]): ChildProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', '--no-warnings', CHILD, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  child.on('close', () => children.delete(child));
  return child;
}

/** Runs a child to its end (killed past the deadline); its stdout lines, or a rejection with its stderr. */
function finish(child: ChildProcess): Promise<string[]> {
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), DEADLINE_MS + 15_000);
    child.stdout?.on('data', (d: Buffer) => (out += d));
    child.stderr?.on('data', (d: Buffer) => (err += d));
    child.on('close', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve(out.trim().split('\n').filter(Boolean));
      else reject(new Error(`child exited ${code}: ${err.slice(-1500)}`));
    });
  });
}

async function newRepository(dir: string, length: number): Promise<string> {
  const file = path.join(dir, 'repo.db');
  await using repo = await Repository.create(Storage.newSqlite(file));
  const session = await repo.writableSession('main');
  await ZarrArray.create(session.store, '/d', { shape: [length], chunkShape: [1], dataType: 'int32', fillValue: 0 });
  await session.commit('setup');
  return file;
}

function integrity(file: string): string {
  const db = new Database(file, { fileMustExist: true });
  try {
    return db.pragma('integrity_check', { simple: true }) as string;
  } finally {
    db.close();
  }
}

describe('several processes on one SQLite repository', () => {
  it(`${WORKERS} processes commit at once; afterwards one intact file holds every commit`, async () => {
    const dir = mkdtempSync(path.join(scratch, 'many-'));
    const file = await newRepository(dir, WORKERS * COMMITS);
    expect(readdirSync(dir)).toEqual(['repo.db']);
    const lines = (await Promise.all(Array.from({ length: WORKERS }, (_, w) => finish(start(['commit', file, String(w), String(COMMITS), String(DEADLINE_MS)]))))).flat();
    expect(lines).toHaveLength(WORKERS * COMMITS);
    expect(readdirSync(dir)).toEqual(['repo.db']);
    expect(integrity(file)).toBe('ok');

    await using repo = await Repository.open(Storage.newSqlite(file));
    const history: string[] = [];
    for await (const snapshot of repo.ancestry({ branch: 'main' })) history.push(snapshot.message);
    expect(history).toHaveLength(WORKERS * COMMITS + 2); // every commit, the setup and the initial snapshot
    const data = await (await ZarrArray.open((await repo.readonlySession({ branch: 'main' })).store, '/d')).get();
    expect(Array.from(data.data as Int32Array)).toEqual(Array.from({ length: WORKERS * COMMITS }, (_, i) => i + 1));
  }, DEADLINE_MS + 30_000);

  it(`${WORKERS} processes open a new file at once: one repository, claimed once, one file left`, async () => {
    const dir = mkdtempSync(path.join(scratch, 'new-'));
    const file = path.join(dir, 'repo.db');
    const tips = (await Promise.all(Array.from({ length: WORKERS }, () => finish(start(['create', file]))))).flat();
    expect(tips).toHaveLength(WORKERS);
    expect(new Set(tips).size).toBe(1);
    expect(readdirSync(dir)).toEqual(['repo.db']);
    expect(integrity(file)).toBe('ok');
  }, DEADLINE_MS);

  it('a process killed before closing leaves -wal and -shm; the next command folds them in and keeps its commit', async () => {
    const dir = mkdtempSync(path.join(scratch, 'killed-'));
    const file = await newRepository(dir, 1);
    const held = start(['hold', file]);
    await new Promise<void>((resolve, reject) => {
      held.stdout?.on('data', (d: Buffer) => d.toString().includes('ready') && resolve());
      held.on('close', (code) => reject(new Error(`the holding child ended early (${code})`)));
    });
    const ended = new Promise((resolve) => held.on('close', resolve));
    held.kill('SIGKILL');
    await ended;
    expect(readdirSync(dir).sort()).toEqual(['repo.db', 'repo.db-shm', 'repo.db-wal']);
    const log = await floe(['log', '--json', '--repo', file], { cwd: dir });
    expect((JSON.parse(log.stdout) as { message: string }[])[0]?.message).toBe('held, never closed');
    expect(readdirSync(dir)).toEqual(['repo.db']);
    expect(integrity(file)).toBe('ok');
  }, DEADLINE_MS);
});
