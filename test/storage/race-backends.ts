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
    case 's3': {
      const { S3Storage } = await import('../../src/engine/storage/s3.ts');
      // Ceph answers some GETs during a write race with 500: the retry wrapper absorbs those.
      const { withRetries } = await import('../../src/engine/storage/retries.ts');
      return withRetries(new S3Storage(backend.options as unknown as ConstructorParameters<typeof S3Storage>[0]), { maxAttempts: 6 });
    }
  }
}
