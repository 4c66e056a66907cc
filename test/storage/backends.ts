// Factories for fresh, empty storages of each local backend, shared by the test files.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { FsStorage } from '../../src/engine/storage/fs.ts';
import { SqliteStorage } from '../../src/engine/storage/sqlite.ts';

export function makeFsStorage(): { storage: FsStorage; cleanup: () => Promise<void> } {
  const storage = new FsStorage({ root: mkdtempSync(path.join(tmpdir(), 'floe-fs-')) });
  return { storage, cleanup: () => storage.destroy() };
}

export function makeSqliteStorage(): { storage: SqliteStorage; file: string; cleanup: () => Promise<void> } {
  const dir = mkdtempSync(path.join(tmpdir(), 'floe-sqlite-'));
  const file = path.join(dir, 'repo.floe.sqlite');
  const storage = new SqliteStorage({ file });
  return { storage, file, cleanup: async () => rmSync(dir, { recursive: true, force: true }) };
}
