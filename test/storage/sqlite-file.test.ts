// Issue 20: a SQLite repository is one file once closed (the WAL checkpointed, -wal and -shm gone),
// recognised by its application id and schema; any other file is refused and never modified.
// Expected values come from SQLite itself (better-sqlite3 opened by the test), not from Floe.
import { createHash } from 'node:crypto';
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { ZarrArray } from '../../src/engine/array.ts';
import { FsStorage } from '../../src/engine/storage/fs.ts';
import { MemoryStorage } from '../../src/engine/storage/memory.ts';
import { SqliteStorage } from '../../src/engine/storage/sqlite.ts';
import { claimDatabase, FLOE_APPLICATION_ID, SQLITE_SCHEMA_VERSION } from '../../src/engine/storage/sqlite-file.ts';
import { withRetries } from '../../src/engine/storage/retries.ts';
import { isFloeError } from '../../src/errors.ts';
import { Repository, Storage } from '../../src/txn/index.ts';
import { refusal } from '../support/error-code.ts';

const scratch = mkdtempSync(path.join(tmpdir(), 'floe-sqlite-file-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
let dirs = 0;
/** A fresh directory, so its listing shows exactly what a test left there. */
const freshDir = () => mkdtempSync(path.join(scratch, `d${dirs++}-`));
const bytes = (text: string) => new TextEncoder().encode(text);
const sha256 = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

/** What SQLite says of a file: its header fields, tables and integrity (the test's connection is closed again). */
function inspect(file: string): { applicationId: number; userVersion: number; tables: string[]; integrity: string } {
  const db = new Database(file, { fileMustExist: true });
  try {
    return {
      applicationId: db.pragma('application_id', { simple: true }) as number,
      userVersion: db.pragma('user_version', { simple: true }) as number,
      tables: db.prepare<[], { name: string }>("SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name").all().map((r) => r.name),
      integrity: db.pragma('integrity_check', { simple: true }) as string,
    };
  } finally {
    db.close();
  }
}

/** Another application's database: one table with a row, in the given journal mode. */
function foreignDatabase(file: string, journal: 'delete' | 'wal', applicationId = 0): void {
  const db = new Database(file);
  db.pragma(`journal_mode = ${journal}`);
  db.exec("CREATE TABLE users (name TEXT); INSERT INTO users VALUES ('ada')");
  if (applicationId !== 0) db.pragma(`application_id = ${applicationId}`);
  db.close();
}

describe('one file, closed properly', () => {
  it('close checkpoints the WAL: only the database file remains, and a copy of it alone holds every write', async () => {
    const dir = freshDir();
    const file = path.join(dir, 'repo.db');
    const storage = new SqliteStorage({ file });
    for (let i = 0; i < 20; i++) await storage.put(`k/${i}`, bytes(`value ${i}`));
    expect(readdirSync(dir).sort()).toEqual(['repo.db', 'repo.db-shm', 'repo.db-wal']); // WAL while open
    await storage.close();
    await storage.close(); // again: nothing to do
    expect(readdirSync(dir)).toEqual(['repo.db']);
    expect(inspect(file)).toEqual({ applicationId: FLOE_APPLICATION_ID, userVersion: SQLITE_SCHEMA_VERSION, tables: ['floe_generation', 'floe_objects'], integrity: 'ok' });

    const elsewhere = path.join(freshDir(), 'copy.db');
    copyFileSync(file, elsewhere);
    await using copy = new SqliteStorage({ file: elsewhere });
    expect(new TextDecoder().decode((await copy.get('k/19'))?.bytes)).toBe('value 19');
  });

  it('a second connection keeps the WAL while open; the last one to close leaves one file', async () => {
    const dir = freshDir();
    const file = path.join(dir, 'repo.db');
    const [first, second] = [new SqliteStorage({ file }), new SqliteStorage({ file })];
    await first.put('a', bytes('1'));
    await first.close();
    expect(readdirSync(dir).sort()).toEqual(['repo.db', 'repo.db-shm', 'repo.db-wal']);
    expect((await second.get('a'))?.bytes).toEqual(bytes('1'));
    await second.close();
    expect(readdirSync(dir)).toEqual(['repo.db']);
  });

  it('a closed storage refuses calls with STORAGE_ERROR instead of a raw SQLite error', async () => {
    const storage = new SqliteStorage({ file: path.join(freshDir(), 'repo.db') });
    await storage.close();
    expect(await refusal(() => storage.get('a'))).toMatchObject({ code: 'STORAGE_ERROR', message: expect.stringMatching(/is closed/) });
  });

  it('await using closes a Repository, a Storage and every backend', async () => {
    const dir = freshDir();
    const file = path.join(dir, 'repo.db');
    let commit: string;
    {
      await using repo = await Repository.create(Storage.newSqlite(file));
      const session = await repo.writableSession('main');
      await (await ZarrArray.create(session.store, '/t', { shape: [4], chunkShape: [2], dataType: 'int16', fillValue: 0 })).set(undefined, 3);
      commit = await session.commit('fill t');
    }
    expect(readdirSync(dir)).toEqual(['repo.db']);
    const copy = path.join(freshDir(), 'copy.db');
    copyFileSync(file, copy);
    {
      await using reopened = await Repository.open(Storage.newSqlite(copy));
      expect(await reopened.lookupBranch('main')).toBe(commit);
    }

    const memory = new MemoryStorage();
    {
      await using storage = Storage.fromObjectStorage(withRetries(memory, {}));
      await storage.backend.put('a', bytes('x'));
    }
    expect(await refusal(() => memory.get('a'))).toMatchObject({ code: 'STORAGE_ERROR', message: expect.stringMatching(/closed/) });
    await using fs = new FsStorage({ root: freshDir() });
    expect(typeof fs[Symbol.asyncDispose]).toBe('function');
  });
});

describe('what is not ours is refused and left untouched', () => {
  const cases: [string, (file: string) => void, RegExp][] = [
    ['a SQLite database of another application (rollback journal)', (f) => foreignDatabase(f, 'delete'), /tables: users/],
    ['a SQLite database of another application (WAL)', (f) => foreignDatabase(f, 'wal'), /tables: users/],
    ['a SQLite database with another application id', (f) => foreignDatabase(f, 'delete', 0x12345678), /application_id 0x12345678/],
  ];
  for (const [what, make, found] of cases) {
    it(`${what}: NOT_A_REPOSITORY, same bytes, no file added`, async () => {
      const dir = freshDir();
      const file = path.join(dir, 'their.db');
      make(file);
      const before = sha256(file);
      for (const open of [() => new SqliteStorage({ file }), () => Repository.open(Storage.newSqlite(file)), () => Repository.create(Storage.newSqlite(file))]) {
        const err = await refusal(open);
        expect(isFloeError(err, 'NOT_A_REPOSITORY') && err.details.reason).toBe('foreign-database');
        expect(err.message).toMatch(found);
      }
      expect(sha256(file)).toBe(before);
      expect(readdirSync(dir)).toEqual(['their.db']);
      expect(inspect(file).tables).toEqual(['users']);
    });
  }

  it('a file that is not SQLite at all: NOT_A_REPOSITORY (not-sqlite), same bytes', async () => {
    const dir = freshDir();
    const file = path.join(dir, 'notes.txt');
    writeFileSync(file, 'time,value\n2020-01-01,3\n'.repeat(100));
    const before = sha256(file);
    const err = await refusal(() => new SqliteStorage({ file }));
    expect(isFloeError(err, 'NOT_A_REPOSITORY') && err.details.reason).toBe('not-sqlite');
    expect(sha256(file)).toBe(before);
    expect(readdirSync(dir)).toEqual(['notes.txt']);
  });

  it('a Floe file of a newer schema is UNSUPPORTED and unchanged', async () => {
    const file = path.join(freshDir(), 'repo.db');
    await new SqliteStorage({ file }).close();
    const db = new Database(file);
    db.pragma(`user_version = ${SQLITE_SCHEMA_VERSION + 1}`);
    db.close();
    const before = sha256(file);
    expect((await refusal(() => new SqliteStorage({ file }))).code).toBe('UNSUPPORTED');
    expect(sha256(file)).toBe(before);
  });

  it('claimForeignDatabase adds Floe tables beside the other application\'s, whose rows stay', async () => {
    const file = path.join(freshDir(), 'their.db');
    foreignDatabase(file, 'delete');
    {
      await using repo = await Repository.create(Storage.newSqlite(file, { claimForeignDatabase: true }));
      expect(await repo.listBranches()).toEqual(['main']);
    }
    const after = inspect(file);
    expect(after).toMatchObject({ applicationId: FLOE_APPLICATION_ID, tables: ['floe_generation', 'floe_objects', 'users'], integrity: 'ok' });
    const db = new Database(file);
    expect(db.prepare('SELECT name FROM users').all()).toEqual([{ name: 'ada' }]);
    db.close();
    await using reopened = await Repository.open(Storage.newSqlite(file)); // ours now, without the option
    expect(await reopened.listBranches()).toEqual(['main']);
  });
});

describe('files Floe made before the application id, and empty databases', () => {
  it('a file with exactly the Floe tables and no application id is stamped and keeps its objects', async () => {
    const file = path.join(freshDir(), 'old.db');
    const db = new Database(file);
    db.pragma('journal_mode = WAL');
    db.exec(`CREATE TABLE floe_objects (key TEXT PRIMARY KEY NOT NULL, bytes BLOB NOT NULL, size INTEGER NOT NULL, modified INTEGER NOT NULL, version TEXT NOT NULL) WITHOUT ROWID;
      CREATE TABLE floe_generation (id INTEGER PRIMARY KEY CHECK (id = 1), value INTEGER NOT NULL);
      INSERT INTO floe_generation VALUES (1, 7); INSERT INTO floe_objects VALUES ('k', X'6869', 2, 0, 'g7');`);
    db.close();
    {
      await using storage = new SqliteStorage({ file });
      expect(await storage.get('k')).toEqual({ bytes: bytes('hi'), version: 'g7' });
    }
    expect(inspect(file)).toMatchObject({ applicationId: FLOE_APPLICATION_ID, userVersion: SQLITE_SCHEMA_VERSION });
  });

  it('an empty file and an empty database become repositories', async () => {
    for (const make of [(f: string) => writeFileSync(f, ''), (f: string) => new Database(f).exec('VACUUM').close()]) {
      const file = path.join(freshDir(), 'new.db');
      make(file);
      {
        await using repo = await Repository.create(Storage.newSqlite(file));
        expect(await repo.listBranches()).toEqual(['main']);
      }
      expect(inspect(file)).toMatchObject({ applicationId: FLOE_APPLICATION_ID, integrity: 'ok' });
    }
  });

  it('a claim another process commits while a new file is being looked at is not taken for a foreign database', () => {
    // Two connections to one new file. Right after the first reads the file's application id, the
    // second claims the file. Read as separate statements, the first then saw the user version 1
    // and Floe's tables with the application id 0: "another application's database" (CI, four
    // processes racing). Read in one transaction, the second's commit waits for the first's look.
    const file = path.join(freshDir(), 'raced.db');
    const looking = new Database(file);
    const other = new Database(file);
    other.pragma('busy_timeout = 0');
    let otherClaim: string | undefined;
    const interleaved = new Proxy(looking, {
      get(target, name) {
        const value = Reflect.get(target, name, target) as unknown;
        if (name !== 'pragma' || otherClaim !== undefined) return typeof value === 'function' ? value.bind(target) : value;
        return (source: string, options?: Database.PragmaOptions) => {
          const result = target.pragma(source, options);
          if (source === 'application_id') {
            try {
              claimDatabase(other, file, false);
              otherClaim = 'committed';
            } catch (err) {
              otherClaim = String((err as { code?: string }).code);
            }
          }
          return result;
        };
      },
    });
    try {
      expect(() => claimDatabase(interleaved, file, false)).not.toThrow();
      expect(otherClaim).toBe('SQLITE_BUSY'); // it had to wait for the look to end
      claimDatabase(other, file, false); // and then finds a Floe file
    } finally {
      looking.close();
      other.close();
    }
    expect(inspect(file)).toMatchObject({ applicationId: FLOE_APPLICATION_ID, userVersion: SQLITE_SCHEMA_VERSION, tables: ['floe_generation', 'floe_objects'] });
  });
});
