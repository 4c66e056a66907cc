// The SQLite backend in the browser build (replaces sqlite.ts there): refuses with UNSUPPORTED.
import { notInBrowser } from './node-only.ts';

/** Options of SqliteStorage (sqlite.ts). */
export interface SqliteStorageOptions {
  file: string;
  claimForeignDatabase?: boolean;
}

export class SqliteStorage {
  constructor(options: SqliteStorageOptions) {
    throw notInBrowser(`a SQLite file (${JSON.stringify(String(options.file))})`);
  }
}
