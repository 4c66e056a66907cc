// `Storage`: where a repository lives. The constructor names mirror the reference JS API
// (`Storage.newInMemory()`, `Storage.newLocalFilesystem(path)`, `Storage.newS3(...)`), plus Floe's
// own `Storage.newSqlite(file)` and `Storage.fromObjectStorage(backend)` for any ObjectStorage.
import { floeError } from '../errors.ts';
import { FsStorage } from '../engine/storage/fs.ts';
import { MemoryStorage } from '../engine/storage/memory.ts';
import { SqliteStorage } from '../engine/storage/sqlite.ts';
import type { ObjectStorage } from '../engine/storage/types.ts';

/** The reference's S3 credential shapes. */
export type S3Credentials =
  | { type: 'FromEnv' }
  | { type: 'Anonymous' }
  | { type: 'Static'; field0: { accessKeyId: string; secretAccessKey: string; sessionToken?: string } };

export interface S3StorageConstructorOptions {
  region?: string;
  endpointUrl?: string;
  allowHttp?: boolean;
  anonymous?: boolean;
  forcePathStyle?: boolean;
}

export class Storage {
  private constructor(readonly backend: ObjectStorage) {}

  static newInMemory(): Storage {
    return new Storage(new MemoryStorage());
  }

  static newLocalFilesystem(path: string): Storage {
    return new Storage(new FsStorage({ root: path }));
  }

  static newSqlite(file: string): Storage {
    return new Storage(new SqliteStorage({ file }));
  }

  /**
   * An S3-compatible bucket. Async (unlike the reference) because the S3 backend and its SDK are
   * loaded only when used.
   */
  static async newS3(bucket: string, prefix?: string | null, credentials?: S3Credentials | null, options: S3StorageConstructorOptions = {}): Promise<Storage> {
    // Loaded on first use so repositories that never touch S3 never load the AWS SDK (~0.3 s).
    const module = await import('../engine/storage/s3.ts');
    const creds = credentials?.type === 'Static' ? credentials.field0 : undefined;
    return new Storage(
      new module.S3Storage({
        bucket,
        ...(prefix ? { prefix } : {}),
        ...(options.endpointUrl ? { endpoint: options.endpointUrl } : {}),
        ...(options.region ? { region: options.region } : {}),
        ...(creds ? { credentials: creds } : {}),
        ...(options.forcePathStyle !== undefined ? { forcePathStyle: options.forcePathStyle } : {}),
      }),
    );
  }

  /** Any backend implementing Floe's ObjectStorage contract. */
  static fromObjectStorage(backend: ObjectStorage): Storage {
    return new Storage(backend);
  }
}

export type StorageLike = Storage | ObjectStorage;

export function objectStorageOf(storage: StorageLike): ObjectStorage {
  return storage instanceof Storage ? storage.backend : storage;
}
