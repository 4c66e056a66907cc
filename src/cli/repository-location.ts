// Where `--repo` points, and opening the repository there. The kind of storage follows from the
// location, so every command after `floe init` needs only the path: `s3://bucket/prefix` is S3,
// `http(s)://…` a published repository (read-only: write commands are refused before any request),
// an existing regular file is a SQLite repository, anything else a local directory. Unknown
// schemes are refused with the list of known ones (parseLocation).
import { statSync } from 'node:fs';
import { floeError, isFloeError } from '../errors.ts';
import { KNOWN_SCHEMES, parseLocation } from '../engine/storage/location.ts';
import type { AbortOptions } from '../engine/storage/types.ts';
import { Repository, Storage } from '../txn/index.ts';
import type { CommandContext } from './command.ts';
import { UsageError } from './command.ts';

export type StorageKind = 'file' | 'sqlite' | 's3' | 'http';
/** The kinds `floe init --storage` creates (HTTP storage is read-only). */
export const STORAGE_KINDS: readonly StorageKind[] = ['file', 'sqlite', 's3'];

export function detectStorageKind(location: string): StorageKind {
  let parsed;
  try {
    parsed = parseLocation(location);
  } catch (err) {
    throw new UsageError(isFloeError(err) ? err.message : `--repo ${JSON.stringify(location)}: known schemes are ${KNOWN_SCHEMES.join(', ')}`);
  }
  if (parsed.kind !== 'path') return parsed.kind;
  try {
    return statSync(parsed.path).isFile() ? 'sqlite' : 'file';
  } catch {
    return 'file';
  }
}

/**
 * Refuses `what` (a write command) on a read-only location before anything is sent: a published
 * repository over HTTP is written where it came from, then copied to its host again.
 */
export function refuseReadOnlyLocation(location: string, what: string): void {
  if (detectStorageKind(location) !== 'http') return;
  throw floeError('READ_ONLY', `${what} writes to the repository, and ${location} is read over HTTP, which is read-only; run it against the repository's own storage (a directory, a SQLite file, s3://…), then publish it again (docs/web.md)`, { where: location });
}

/**
 * Headers for an HTTP location, from the environment (never the command line, where other users
 * and shell histories see it): FLOE_HTTP_HEADERS, a JSON object of headers, and FLOE_HTTP_TOKEN,
 * a bearer token (what `floe serve --token` asks for). They go only to the location's own origin.
 */
export function httpHeadersFromEnv(env: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const headers: Record<string, string> = {};
  const json = env.FLOE_HTTP_HEADERS;
  if (json) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(json);
    } catch (err) {
      throw floeError('INVALID_ARGUMENT', 'FLOE_HTTP_HEADERS is not JSON; set it to an object of header names and values, e.g. {"Authorization": "Basic …"}', { cause: err });
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed) || Object.values(parsed).some((v) => typeof v !== 'string')) {
      throw floeError('INVALID_ARGUMENT', 'FLOE_HTTP_HEADERS must be a JSON object whose values are strings');
    }
    Object.assign(headers, parsed);
  }
  if (env.FLOE_HTTP_TOKEN) headers.authorization = `Bearer ${env.FLOE_HTTP_TOKEN}`;
  return headers;
}

/** `1`, `true` or `yes` (any case) in an environment variable. */
function envFlag(ctx: CommandContext, name: string): boolean {
  return /^(1|true|yes)$/i.test(ctx.io.env[name] ?? '');
}

/**
 * S3 settings come from the standard AWS variables plus FLOE_S3_ENDPOINT for S3-compatible stores
 * and FLOE_S3_UNQUOTED_IF_MATCH for servers (Ceph RGW) that refuse a correct ETag in quotes: without
 * it every conditional update there is refused, and a commit gives up as a CONFLICT.
 */
export async function storageAt(ctx: CommandContext, location: string, kind: StorageKind, claimForeignDatabase = false): Promise<Storage> {
  switch (kind) {
    case 'file':
      return Storage.newLocalFilesystem(location);
    case 'sqlite':
      return Storage.newSqlite(location, { claimForeignDatabase });
    case 'http':
      return Storage.newHttp(location, { headers: httpHeadersFromEnv(ctx.io.env) });
    case 's3': {
      const match = /^s3:\/\/([^/]+)\/?(.*)$/.exec(location);
      const [, bucket, prefix] = match ?? [];
      if (bucket === undefined) throw new UsageError(`an S3 repository is s3://bucket[/prefix], got ${JSON.stringify(location)}`);
      const endpoint = ctx.string('endpoint') ?? ctx.io.env.FLOE_S3_ENDPOINT ?? ctx.io.env.AWS_ENDPOINT_URL;
      const region = ctx.string('region') ?? ctx.io.env.AWS_REGION ?? 'us-east-1';
      const unquotedIfMatch = envFlag(ctx, 'FLOE_S3_UNQUOTED_IF_MATCH');
      return Storage.newS3(bucket, prefix || null, { type: 'FromEnv' }, { region, forcePathStyle: true, unquotedIfMatch, ...(endpoint ? { endpointUrl: endpoint } : {}) });
    }
  }
}

/**
 * Opens the repository at `--repo`; a missing one fails with what to run instead. `request` carries
 * the command's cancellation signal (`floe serve` passes none: its signal means "stop serving").
 * The storage is closed when the command ends (CommandContext.closingAfter), so a SQLite
 * repository is one file again after every command.
 */
/** {@link openRepository} for a command that writes: a read-only (HTTP) location is refused first. */
export async function openRepositoryToWrite(ctx: CommandContext, what: string, location = ctx.repoPath): Promise<Repository> {
  refuseReadOnlyLocation(location, what);
  return openRepository(ctx, location);
}

export async function openRepository(ctx: CommandContext, location = ctx.repoPath, request: AbortOptions = ctx.request): Promise<Repository> {
  const storage = ctx.closeWhenDone(await storageAt(ctx, location, detectStorageKind(location)));
  try {
    const allowed = allowedVirtualPrefixes(ctx);
    const options = { clock: ctx.clock, ...request };
    const repo = await Repository.open(storage, undefined, Object.fromEntries(allowed.filter((p) => p !== 'all').map((p) => [p, null])), options);
    if (!allowed.includes('all')) return repo;
    // "all": every container the configuration lists, known only once it is read.
    const every = Object.values(repo.config.virtualChunkContainers ?? {}).map((c) => [c.urlPrefix, null] as const);
    return await Repository.open(storage, undefined, Object.fromEntries(every), options);
  } catch (err) {
    if (isFloeError(err, 'NOT_FOUND') && detectStorageKind(location) === 'http') {
      throw floeError('NOT_FOUND', `no Icechunk repository at ${location}: its \`repo\` file is missing (404); give the URL of the repository's root, the folder that holds \`repo\`, \`snapshots/\` and \`chunks/\``, { cause: err });
    }
    if (isFloeError(err, 'NOT_FOUND')) {
      throw floeError('NOT_FOUND', `no Floe repository at ${location}; create one with \`floe init --repo ${location}\` or run \`floe demo\``, { cause: err });
    }
    throw missingBucketError(location, err) ?? err;
  }
}

/**
 * Virtual chunk containers the user lets the command read (the reference's
 * `authorizeVirtualChunkAccess`, without credentials): `--allow-virtual PREFIX` (repeatable) and
 * FLOE_ALLOW_VIRTUAL (prefixes separated by commas or spaces); `all` allows every container the
 * repository's configuration lists.
 */
export function allowedVirtualPrefixes(ctx: CommandContext): string[] {
  const flag = ctx.flags['allow-virtual'];
  const given = Array.isArray(flag) ? flag.filter((v): v is string => typeof v === 'string') : typeof flag === 'string' ? [flag] : [];
  const env = (ctx.io.env.FLOE_ALLOW_VIRTUAL ?? '').split(/[\s,]+/).filter((p) => p !== '');
  return [...given, ...env];
}

/**
 * The S3 backend reports a missing bucket as a failed request (NoSuchBucket); say which bucket and
 * what to do instead. Undefined for any other failure.
 */
export function missingBucketError(location: string, err: unknown): Error | undefined {
  if (!isFloeError(err, 'STORAGE_ERROR') || (err.cause as { name?: unknown } | undefined)?.name !== 'NoSuchBucket') return undefined;
  const bucket = /^s3:\/\/([^/]+)/.exec(location)?.[1] ?? location;
  return floeError('NOT_FOUND', `the S3 bucket "${bucket}" does not exist; create it first (e.g. \`aws s3 mb s3://${bucket}\`), then \`floe init --storage s3 --repo ${location}\``, { cause: err });
}
