// `floe init`: creates an empty repository (a `main` branch with the initial snapshot) in a new or
// empty location. What is not ours stays untouched: a directory or prefix holding other files, and
// another application's SQLite database, are refused unless `--force` (init-target.ts).
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { Repository } from '../../txn/index.ts';
import { UsageError, type CommandSpec } from '../command.ts';
import { detectStorageKind, missingBucketError, refuseReadOnlyLocation, STORAGE_KINDS, storageAt, type StorageKind } from '../repository-location.ts';
import { refuseNonEmptyTarget } from './init-target.ts';

export const initCommand: CommandSpec = {
  usage: '[--storage file|sqlite|s3] [--force] [--endpoint URL] [--region R]',
  details: [
    '--storage   file: a directory (default; a new path ending .db, .sqlite or .sqlite3: sqlite); sqlite: one SQLite file; s3: s3://bucket/prefix',
    '            (credentials from the AWS_* variables; FLOE_S3_ENDPOINT or --endpoint for S3-compatible stores;',
    '            FLOE_S3_UNQUOTED_IF_MATCH=1 for Ceph RGW, which refuses quoted ETags in If-Match)',
    '--force     write the repository even where other data is: into a non-empty directory or prefix',
    '            (e.g. beside a Zarr store), or into a SQLite database of another application (Floe\'s',
    '            tables are added beside its own). Without it such a location is refused and left untouched.',
  ].join('\n'),
  examples: ['floe init --repo ./climate.icechunk', 'floe init --storage sqlite --repo ./climate.floe', 'floe init --storage s3 --repo s3://bucket/climate --endpoint http://127.0.0.1:7480'],
  options: { storage: { type: 'string' }, endpoint: { type: 'string' }, region: { type: 'string' }, force: { type: 'boolean' } },
  async run(ctx) {
    ctx.atMost(0);
    const location = ctx.repoPath;
    refuseReadOnlyLocation(location, 'floe init');
    const given = ctx.string('storage');
    if (given !== undefined && !STORAGE_KINDS.includes(given as StorageKind)) throw new UsageError(`--storage is one of ${STORAGE_KINDS.join(', ')}, got ${JSON.stringify(given)}`);
    const kind = (given as StorageKind | undefined) ?? initStorageKind(location);
    const force = ctx.flags.force === true;
    if (kind === 'sqlite') mkdirSync(path.dirname(location), { recursive: true });
    const storage = ctx.closeWhenDone(await storageAt(ctx, location, kind, force));
    const create = async () => {
      // A repository there gets ALREADY_EXISTS from create; anything else there is not ours.
      if (!force && !(await Repository.exists(storage, ctx.request))) await refuseNonEmptyTarget(location, kind, storage.backend);
      return Repository.create(storage, {}, 2, {}, ctx.request);
    };
    const repo = await create().catch((err: unknown) => {
      throw missingBucketError(location, err) ?? err;
    });
    const tip = await repo.lookupBranch('main', ctx.request);
    if (ctx.json) ctx.printJson({ repository: location, storage: kind, branch: 'main', snapshotId: tip });
    else ctx.print(`created an empty ${kind} repository at ${location} (branch main at ${tip})`);
  },
};

/**
 * A new path named like a database file (`repo.db`, `.sqlite`, `.sqlite3`) is a SQLite
 * repository, as a newcomer typing `floe init --repo repo.db` means; only `init` guesses from the
 * name, because opening a missing file would create it.
 */
function initStorageKind(location: string): StorageKind {
  const kind = detectStorageKind(location);
  if (kind === 'file' && !existsSync(location) && /\.(db|sqlite3?)$/i.test(location)) return 'sqlite';
  return kind;
}
