// Where `--repo` points, and opening the repository there. The kind of storage follows from the
// location, so every command after `floe init` needs only the path: `s3://bucket/prefix` is S3,
// an existing regular file is a SQLite repository, anything else a local directory.
import { statSync } from 'node:fs';
import { floeError, isFloeError } from '../errors.ts';
import { Repository, Storage } from '../txn/index.ts';
import type { CommandContext } from './command.ts';
import { UsageError } from './command.ts';

export type StorageKind = 'file' | 'sqlite' | 's3';
export const STORAGE_KINDS: readonly StorageKind[] = ['file', 'sqlite', 's3'];

export function detectStorageKind(location: string): StorageKind {
  if (location.startsWith('s3://')) return 's3';
  try {
    return statSync(location).isFile() ? 'sqlite' : 'file';
  } catch {
    return 'file';
  }
}

/** S3 settings come from the standard AWS variables plus FLOE_S3_ENDPOINT for S3-compatible stores. */
export async function storageAt(ctx: CommandContext, location: string, kind: StorageKind): Promise<Storage> {
  switch (kind) {
    case 'file':
      return Storage.newLocalFilesystem(location);
    case 'sqlite':
      return Storage.newSqlite(location);
    case 's3': {
      const match = /^s3:\/\/([^/]+)\/?(.*)$/.exec(location);
      if (!match) throw new UsageError(`an S3 repository is s3://bucket[/prefix], got ${JSON.stringify(location)}`);
      const endpoint = ctx.string('endpoint') ?? ctx.io.env.FLOE_S3_ENDPOINT ?? ctx.io.env.AWS_ENDPOINT_URL;
      const region = ctx.string('region') ?? ctx.io.env.AWS_REGION ?? 'us-east-1';
      return Storage.newS3(match[1]!, match[2] || null, { type: 'FromEnv' }, { region, forcePathStyle: true, ...(endpoint ? { endpointUrl: endpoint } : {}) });
    }
  }
}

/** Opens the repository at `--repo`; a missing one fails with what to run instead. */
export async function openRepository(ctx: CommandContext, location = ctx.repoPath): Promise<Repository> {
  const storage = await storageAt(ctx, location, detectStorageKind(location));
  try {
    return await Repository.open(storage);
  } catch (err) {
    if (isFloeError(err, 'NOT_FOUND')) {
      throw floeError('NOT_FOUND', `no Floe repository at ${location}; create one with \`floe init --repo ${location}\` or run \`floe demo\``, { cause: err });
    }
    throw err;
  }
}
