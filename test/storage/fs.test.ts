import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { FsStorage } from '../../src/engine/storage/fs.ts';
import { defineStorageContract } from './contract.ts';

export function makeFsStorage(): { storage: FsStorage; cleanup: () => Promise<void> } {
  const storage = new FsStorage({ root: mkdtempSync(path.join(tmpdir(), 'floe-fs-')) });
  return { storage, cleanup: () => storage.destroy() };
}

defineStorageContract('fs', async () => makeFsStorage(), { fileAndDirectorySameName: false });
