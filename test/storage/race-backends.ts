// Backends a race child process can open, described by plain JSON so they cross process boundaries.
import { FsStorage } from '../../src/engine/storage/fs.ts';
import type { ObjectStorage } from '../../src/engine/storage/types.ts';

export type RaceBackend =
  | { kind: 'fs'; root: string }
  | { kind: 'sqlite'; file: string }
  | { kind: 's3'; options: Record<string, unknown> };

export async function openRaceStorage(backend: RaceBackend): Promise<ObjectStorage> {
  switch (backend.kind) {
    case 'fs':
      return new FsStorage({ root: backend.root });
    case 'sqlite': {
      const { SqliteStorage } = await import('../../src/engine/storage/sqlite.ts');
      return new SqliteStorage({ file: backend.file });
    }
    case 's3':
      throw new Error('s3 race backend not wired yet');
  }
}
