// SQLite single-file backend: a whole repository in one file (better-sqlite3). Objects live in
// one table; every write runs in a `BEGIN IMMEDIATE` transaction that checks the precondition and
// writes, so conditional writes are atomic across threads and OS processes. WAL mode lets readers
// run beside the writer; `busy_timeout` makes a second process wait for the write lock instead of
// failing. `close()` checkpoints the WAL into the file, and SQLite removes `-wal` and `-shm` when
// the last connection closes, so a closed repository is one file (sqlite-file.ts says which files
// are ours). Version tokens come from one generation counter in the same file, so a token is never
// reused, not even after a delete and re-create with identical bytes. Statements are synchronous,
// so a signal is checked before each one (one per call, per listing page, per delete batch).
import type Database from 'better-sqlite3';
import { floeError } from '../../errors.ts';
import { throwIfAborted } from '../abort.ts';
import { requireOptional } from '../../optional-dependency.ts';
import { checkSqliteHeader, claimDatabase } from './sqlite-file.ts';
import { systemClock, type Clock } from './clock.ts';
import { validateDirPrefix, validateKey, validatePrefix } from './keys.ts';
import { checkPrecondition, validatePutOptions } from './preconditions.ts';
import { checkObjectSize, objectBound } from './object-bound.ts';
import { validateRange } from './ranges.ts';
import { compareKeys } from './memory.ts';
import type {
  AbortOptions, ByteRange, CopyOptions, ObjectGetOptions, GetResult, ListDirResult, ListOptions, ObjectInfo, ObjectStorage, PutOptions, VersionToken,
} from './types.ts';

/** Options of {@link SqliteStorage}. */
export interface SqliteStorageOptions {
  /**
   * Path of the database file; created with its schema if missing or empty. A file that is not a
   * Floe repository is refused with NOT_A_REPOSITORY and left untouched.
   */
  file: string;
  /**
   * Adds Floe's tables to a SQLite database of another application (its own tables stay as they
   * are) instead of refusing it: what `floe init --force` asks for. Default false.
   */
  claimForeignDatabase?: boolean;
  /** How long a writer waits for another process's write lock. Default 10 000 ms. */
  busyTimeoutMs?: number;
  /** `synchronous = FULL` (default true): a commit survives power loss, not only a crash. */
  durable?: boolean;
  /** Rows fetched per query while listing. Default 1000. */
  pageSize?: number;
  /** Time recorded as each write's `lastModified`. Default: the system clock. */
  clock?: Clock;
}

interface ObjectRow {
  key: string;
  size: number;
  modified: number;
  version: string;
}

/**
 * Single-file SQLite {@link ObjectStorage} (needs the optional peer `better-sqlite3`). Each write is
 * one `BEGIN IMMEDIATE` transaction, so conditional writes are atomic across threads and processes;
 * WAL mode lets readers run beside the writer. Once closed (`close()`, `await using`) the repository
 * is one file. A file that is not a Floe repository is refused (NOT_A_REPOSITORY) and left untouched.
 */
export class SqliteStorage implements ObjectStorage {
  readonly kind = 'sqlite';
  readonly file: string;
  private readonly db: Database.Database;
  private readonly pageSize: number;
  private readonly clock: Clock;
  private readonly statements;

  constructor(options: SqliteStorageOptions) {
    this.file = options.file;
    this.pageSize = options.pageSize ?? 1000;
    this.clock = options.clock ?? systemClock;
    const open = requireOptional<typeof Database>('better-sqlite3', 'SQLite storage');
    checkSqliteHeader(options.file);
    const db = openDatabase(open, options);
    this.db = db;
    this.statements = {
      whole: db.prepare<[string], { bytes: Buffer; version: string }>('SELECT bytes, version FROM floe_objects WHERE key = ?'),
      // substr on a BLOB counts bytes from 1; a start past the end gives an empty blob.
      range: db.prepare<{ key: string; offset: number | null; length: number | null; suffix: number | null }, { part: Buffer | null; version: string }>(
        `SELECT version, substr(bytes,
            CASE WHEN :suffix IS NOT NULL THEN max(size - :suffix, 0) + 1 ELSE :offset + 1 END,
            CASE WHEN :suffix IS NOT NULL THEN min(:suffix, size) WHEN :length IS NOT NULL THEN :length ELSE size END) AS part
         FROM floe_objects WHERE key = :key`,
      ),
      head: db.prepare<[string], ObjectRow>('SELECT key, size, modified, version FROM floe_objects WHERE key = ?'),
      version: db.prepare<[string], { version: string }>('SELECT version FROM floe_objects WHERE key = ?'),
      bump: db.prepare<[], { value: number }>('UPDATE floe_generation SET value = value + 1 WHERE id = 1 RETURNING value'),
      upsert: db.prepare<[string, Buffer | Uint8Array, number, number, string]>(
        `INSERT INTO floe_objects (key, bytes, size, modified, version) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (key) DO UPDATE SET bytes = excluded.bytes, size = excluded.size,
           modified = excluded.modified, version = excluded.version`,
      ),
      copyRow: db.prepare<[string, number, string, string]>(
        `INSERT INTO floe_objects (key, bytes, size, modified, version)
           SELECT ?, bytes, size, ?, ? FROM floe_objects WHERE key = ?
         ON CONFLICT (key) DO UPDATE SET bytes = excluded.bytes, size = excluded.size,
           modified = excluded.modified, version = excluded.version`,
      ),
      remove: db.prepare<[string]>('DELETE FROM floe_objects WHERE key = ?'),
      page: db.prepare<[string, number], ObjectRow>('SELECT key, size, modified, version FROM floe_objects WHERE key >= ? ORDER BY key LIMIT ?'),
      pageAfter: db.prepare<[string, number], ObjectRow>('SELECT key, size, modified, version FROM floe_objects WHERE key > ? ORDER BY key LIMIT ?'),
      firstFrom: db.prepare<[string], ObjectRow>('SELECT key, size, modified, version FROM floe_objects WHERE key >= ? ORDER BY key LIMIT 1'),
    };
  }

  async get(key: string, range?: ByteRange, options?: ObjectGetOptions): Promise<GetResult | null> {
    throwIfAborted(options?.signal, key);
    validateKey(key);
    if (!range) {
      if (objectBound(range, options) !== undefined) {
        // The size column tells without reading the blob.
        const info = this.run(key, () => this.statements.head.get(key));
        if (!info) return null;
        checkObjectSize(key, info.size, range, options);
      }
      const row = this.run(key, () => this.statements.whole.get(key));
      return row ? { bytes: asBytes(row.bytes), version: row.version } : null;
    }
    validateRange(range, key);
    const params = 'suffixLength' in range
      ? { key, offset: null, length: null, suffix: range.suffixLength }
      : { key, offset: range.offset, length: range.length ?? null, suffix: null };
    const row = this.run(key, () => this.statements.range.get(params));
    return row ? { bytes: asBytes(row.part), version: row.version } : null;
  }

  async head(key: string, options?: AbortOptions): Promise<ObjectInfo | null> {
    throwIfAborted(options?.signal, key);
    validateKey(key);
    const row = this.run(key, () => this.statements.head.get(key));
    return row ? infoOf(row) : null;
  }

  async put(key: string, bytes: Uint8Array, options?: PutOptions): Promise<{ version: VersionToken }> {
    throwIfAborted(options?.signal, key);
    validateKey(key);
    validatePutOptions(options, key);
    const write = this.db.transaction(() => {
      checkPrecondition(key, this.statements.version.get(key)?.version, options);
      const version = this.nextVersion();
      this.statements.upsert.run(key, bytes, bytes.length, this.clock.nowMs(), version);
      return { version };
    });
    return this.run(key, () => write.immediate());
  }

  async copy(from: string, to: string, options?: CopyOptions): Promise<{ version: VersionToken }> {
    throwIfAborted(options?.signal, to);
    validateKey(from);
    validateKey(to);
    const write = this.db.transaction(() => {
      const source = this.statements.version.get(from)?.version;
      if (options?.ifMatch !== undefined) checkPrecondition(from, source, { ifMatch: options.ifMatch });
      if (source === undefined) throw floeError('NOT_FOUND', `cannot copy ${JSON.stringify(from)}: no such object`, { where: from });
      const version = this.nextVersion();
      this.statements.copyRow.run(to, this.clock.nowMs(), version, from);
      return { version };
    });
    return this.run(to, () => write.immediate());
  }

  async *list(prefix: string, options?: ListOptions): AsyncIterable<ObjectInfo> {
    const signal = options?.signal;
    throwIfAborted(signal, prefix);
    validatePrefix(prefix);
    const after = options?.startAfter;
    let rows = this.run(prefix, () =>
      after !== undefined && compareKeys(after, prefix) >= 0
        ? this.statements.pageAfter.all(after, this.pageSize)
        : this.statements.page.all(prefix, this.pageSize),
    );
    while (rows.length > 0) {
      let last = '';
      for (const row of rows) {
        if (!row.key.startsWith(prefix)) return;
        yield infoOf(row);
        last = row.key;
      }
      if (rows.length < this.pageSize) return;
      throwIfAborted(signal, prefix);
      rows = this.run(prefix, () => this.statements.pageAfter.all(last, this.pageSize));
    }
  }

  async listDir(prefix: string, options?: AbortOptions): Promise<ListDirResult> {
    throwIfAborted(options?.signal, prefix);
    validateDirPrefix(prefix);
    const objects: ObjectInfo[] = [];
    const prefixes: string[] = [];
    // Skip-scan: after finding child directory `p/d/`, jump past all its keys to `p/d0`
    // ('0' is the character after '/'), so the cost follows the entries, not the objects.
    let from = prefix;
    for (;;) {
      const row = this.run(prefix, () => this.statements.firstFrom.get(from));
      if (!row || !row.key.startsWith(prefix)) break;
      const slash = row.key.indexOf('/', prefix.length);
      if (slash === -1) {
        objects.push(infoOf(row));
        from = `${row.key}\u0000`; // smallest string after this key (NUL never appears in keys)
      } else {
        const child = row.key.slice(0, slash + 1);
        prefixes.push(child);
        from = `${row.key.slice(0, slash)}0`;
      }
    }
    return { objects, prefixes };
  }

  async delete(keys: readonly string[], options?: AbortOptions): Promise<void> {
    throwIfAborted(options?.signal, keys[0]);
    keys.forEach((key) => validateKey(key));
    const removeAll = this.db.transaction((batch: readonly string[]) => {
      for (const key of batch) this.statements.remove.run(key);
    });
    for (let i = 0; i < keys.length; i += 1000) {
      if (i > 0) throwIfAborted(options?.signal, keys[i]); // batches already deleted stay deleted
      const batch = keys.slice(i, i + 1000);
      this.run(batch[0] ?? '', () => removeAll.immediate(batch));
    }
  }

  /**
   * Checkpoints the WAL into the database file and closes the connection; the last connection to
   * close removes `-wal` and `-shm`, leaving one file. Safe to call again.
   */
  async close(): Promise<void> {
    if (!this.db.open) return;
    try {
      // Never wait: while another connection is busy the checkpoint is partial, and the last
      // connection to close checkpoints what remains.
      this.db.pragma('busy_timeout = 0');
      this.db.pragma('wal_checkpoint(TRUNCATE)');
    } catch (err) {
      if (!isBusy(err)) throw sqliteFailure(this.file, this.file, err);
    } finally {
      this.db.close();
    }
  }

  /** {@link close}, for `await using`. */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  private nextVersion(): VersionToken {
    const row = this.statements.bump.get();
    if (!row) throw floeError('CORRUPT_OBJECT', `SQLite storage ${this.file} lacks its generation row`, { where: this.file });
    return `g${row.value}`;
  }

  /** Runs a statement, turning SQLite failures (busy past the timeout, I/O) into STORAGE_ERROR. */
  private run<T>(where: string, action: () => T): T {
    if (!this.db.open) throw floeError('STORAGE_ERROR', `SQLite storage ${this.file} is closed`, { where });
    try {
      return action();
    } catch (err) {
      throw sqliteFailure(this.file, where, err);
    }
  }
}

/**
 * Opens the file, makes sure it is a Floe repository (claimDatabase) and only then switches it to
 * WAL, which rewrites the header: a refused file is closed unchanged. Always read-write, even for a
 * reader: a read-only connection to a WAL file leaves `-wal` and `-shm` behind when it closes
 * (measured with better-sqlite3 12.11, SQLite 3.53).
 */
function openDatabase(open: typeof Database, options: SqliteStorageOptions): Database.Database {
  let db: Database.Database;
  try {
    db = new open(options.file);
  } catch (err) {
    throw sqliteFailure(options.file, options.file, err, `cannot open SQLite storage ${options.file}`);
  }
  try {
    db.pragma(`busy_timeout = ${Math.max(0, Math.floor(options.busyTimeoutMs ?? 10_000))}`);
    claimDatabase(db, options.file, options.claimForeignDatabase === true);
    db.pragma('journal_mode = WAL');
    db.pragma(`synchronous = ${options.durable === false ? 'NORMAL' : 'FULL'}`);
    return db;
  } catch (err) {
    db.close();
    throw sqliteFailure(options.file, options.file, err, `cannot open SQLite storage ${options.file}`);
  }
}

function isBusy(err: unknown): boolean {
  return err instanceof Error && /^SQLITE_BUSY/.test(String((err as { code?: string }).code));
}

/** A SQLite failure as a FloeError: TIMEOUT when busy past the timeout, NOT_A_REPOSITORY for a non-database, else STORAGE_ERROR. */
function sqliteFailure(file: string, where: string, err: unknown, what = `SQLite storage ${file} failed`): Error {
  if (err instanceof Error && err.name === 'FloeError') return err;
  const message = err instanceof Error ? err.message : String(err);
  if (err instanceof Error && /^SQLITE_NOTADB/.test(String((err as { code?: string }).code))) {
    return floeError('NOT_A_REPOSITORY', `${file} is not a SQLite database (${message}), not a Floe repository`, { where: file, cause: err, details: { reason: 'not-sqlite', found: message } });
  }
  return floeError(isBusy(err) ? 'TIMEOUT' : 'STORAGE_ERROR', `${what}: ${message}`, { where, cause: err });
}

function asBytes(buffer: Buffer | null): Uint8Array {
  if (!buffer) return new Uint8Array(0);
  return new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
}

function infoOf(row: ObjectRow): ObjectInfo {
  return { key: row.key, size: row.size, lastModified: new Date(row.modified), version: row.version };
}
