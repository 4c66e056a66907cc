// Recognising a Floe SQLite repository file, and refusing everything else untouched. A Floe file
// carries `PRAGMA application_id = FLOE_APPLICATION_ID` ('Floe' in ASCII), `PRAGMA user_version =
// SQLITE_SCHEMA_VERSION` and its two tables. A file that is not SQLite at all is refused from its
// header bytes before SQLite opens it; a SQLite database of another application is refused after
// reading its header fields and schema, which writes nothing. Files made before the application
// id existed (exactly Floe's two tables, id 0) and empty databases are claimed: stamped, in one
// `BEGIN IMMEDIATE` transaction that looks again, so concurrent openers claim a file once.
import { closeSync, openSync, readSync } from 'node:fs';
import type Database from 'better-sqlite3';
import { floeError } from '../../errors.ts';

/** `PRAGMA application_id` of a Floe repository file: the ASCII bytes 'Floe' (0x466C6F65). */
export const FLOE_APPLICATION_ID = 0x466c6f65;
/** `PRAGMA user_version` of the schema below; a file with a larger one was written by a newer Floe. */
export const SQLITE_SCHEMA_VERSION = 1;

const TABLES = ['floe_generation', 'floe_objects'] as const;

const SCHEMA = `
CREATE TABLE IF NOT EXISTS floe_objects (
  key      TEXT PRIMARY KEY NOT NULL,  -- BINARY collation: byte order of UTF-8, as S3 lists
  bytes    BLOB NOT NULL,
  size     INTEGER NOT NULL,
  modified INTEGER NOT NULL,           -- ms since the epoch
  version  TEXT NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS floe_generation (id INTEGER PRIMARY KEY CHECK (id = 1), value INTEGER NOT NULL);
INSERT OR IGNORE INTO floe_generation (id, value) VALUES (1, 0);
`;

const SQLITE_MAGIC = 'SQLite format 3\u0000';

/**
 * Refuses (NOT_A_REPOSITORY, 'not-sqlite') a file whose first bytes are not a SQLite header,
 * reading nothing but those bytes. A missing or empty file passes: SQLite creates a database there.
 */
export function checkSqliteHeader(file: string): void {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw floeError('STORAGE_ERROR', `cannot open SQLite storage ${file}: ${(err as Error).message}`, { where: file, cause: err });
  }
  const header = Buffer.alloc(SQLITE_MAGIC.length);
  let read: number;
  try {
    read = readSync(fd, header, 0, header.length, 0);
  } catch (err) {
    const isDirectory = (err as NodeJS.ErrnoException).code === 'EISDIR';
    if (!isDirectory) throw floeError('STORAGE_ERROR', `cannot read SQLite storage ${file}: ${(err as Error).message}`, { where: file, cause: err });
    throw notOurs(file, 'not-sqlite', 'a directory', 'name a file for a SQLite repository, or use the directory as a file repository');
  } finally {
    closeSync(fd);
  }
  if (read === 0) return;
  if (header.subarray(0, read).toString('latin1') !== SQLITE_MAGIC) {
    throw notOurs(file, 'not-sqlite', 'a file that is not a SQLite database', 'point --repo at a Floe repository, or pick a new file name');
  }
}

type Identity =
  | { kind: 'floe'; version: number }
  | { kind: 'unstamped-floe' } // Floe's two tables and nothing else, made before the application id
  | { kind: 'empty' }
  | { kind: 'foreign'; found: string };

/**
 * What the file is, read in one read transaction: as separate statements, a claim another process
 * committed between the header reads and the schema read looked like a foreign database (CI: the
 * application id still 0, the user version already 1, Floe's tables there).
 */
function identify(db: Database.Database): Identity {
  return db.inTransaction ? readIdentity(db) : db.transaction(readIdentity).deferred(db);
}

function readIdentity(db: Database.Database): Identity {
  const applicationId = db.pragma('application_id', { simple: true }) as number;
  const version = db.pragma('user_version', { simple: true }) as number;
  const names = db.prepare<[], { name: string }>(`SELECT name FROM sqlite_schema WHERE name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name`).all().map((r) => r.name);
  const hasOurTables = TABLES.every((t) => names.includes(t));
  if (applicationId === FLOE_APPLICATION_ID && hasOurTables) return { kind: 'floe', version };
  if (applicationId === 0 && version === 0) {
    if (names.length === 0) return { kind: 'empty' };
    if (hasOurTables && names.length === TABLES.length) return { kind: 'unstamped-floe' };
  }
  const found = applicationId !== 0
    ? `application_id 0x${(applicationId >>> 0).toString(16).padStart(8, '0')}`
    : names.length > 0 ? `tables: ${names.slice(0, 5).join(', ')}${names.length > 5 ? ', ...' : ''}` : `user_version ${version}`;
  return { kind: 'foreign', found };
}

/**
 * Makes sure `db` is a Floe repository file: accepts one, claims an empty or unstamped one (or,
 * with `claimForeign`, another application's database, whose own tables stay as they are), and
 * refuses anything else before writing a byte: NOT_A_REPOSITORY, or UNSUPPORTED for a newer schema.
 */
export function claimDatabase(db: Database.Database, file: string, claimForeign: boolean): void {
  const claimable = (identity: Identity) => identity.kind === 'empty' || identity.kind === 'unstamped-floe' || (identity.kind === 'foreign' && claimForeign);
  const first = identify(db);
  if (claimable(first)) {
    db.transaction(() => {
      const now = identify(db); // another process may have claimed it meanwhile
      if (!claimable(now)) return requireOurs(now, file);
      db.exec(SCHEMA);
      db.pragma(`application_id = ${FLOE_APPLICATION_ID}`);
      db.pragma(`user_version = ${SQLITE_SCHEMA_VERSION}`);
    }).immediate();
    return;
  }
  requireOurs(first, file);
}

function requireOurs(identity: Identity, file: string): void {
  if (identity.kind === 'foreign') {
    throw notOurs(file, 'foreign-database', `a SQLite database of another application (${identity.found})`,
      'Floe neither opens nor changes it; point --repo at a Floe repository, or `floe init --force` to add Floe\'s tables beside its own');
  }
  if (identity.kind === 'floe' && identity.version > SQLITE_SCHEMA_VERSION) {
    throw floeError('UNSUPPORTED', `${file} is a Floe SQLite repository of schema ${identity.version}, newer than this Floe's ${SQLITE_SCHEMA_VERSION}; upgrade Floe to open it`, { where: file });
  }
}

function notOurs(file: string, reason: 'not-sqlite' | 'foreign-database', found: string, advice: string): Error {
  return floeError('NOT_A_REPOSITORY', `${file} is ${found}, not a Floe repository; ${advice}`, { where: file, details: { reason, found } });
}
