// `floe import <store>`: copies a plain Zarr v3 store (a hierarchy or one array) into the
// repository as one commit, bytes verbatim; a Zarr v1 array or a Zarr v2 hierarchy is converted
// to v3 on the way (src/engine/convert.ts, convert-v2.ts). The source directory is only read.
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { floeError } from '../../errors.ts';
import { convertV1ToV3 } from '../../engine/convert.ts';
import { convertV2ToV3 } from '../../engine/convert-v2.ts';
import { DEFAULT_CONCURRENCY, mapLimit } from '../../engine/storage/limiter.ts';
import { FsStorage } from '../../engine/storage/fs.ts';
import { StorageStore } from '../../engine/store.ts';
import { normalizePath } from '../../format/zarr/paths.ts';
import type { Session } from '../../txn/index.ts';
import { UsageError, type CommandContext, type CommandSpec } from '../command.ts';
import { Progress } from '../progress.ts';
import { openRepository, refuseReadOnlyLocation } from '../repository-location.ts';
import { createImplicitGroups, createParents, keyPrefix, listV3, sourceFormat, type SourceFormat } from '../zarr-source.ts';

export interface ImportDestination {
  readonly repo: string;
  readonly branch: string;
  readonly path: string;
}

/**
 * Where the import goes: `--branch` (default main), `--path` (default the store's directory name,
 * without .zarr, under /) in the repository `--repo`. `--into` is the older single option, kept
 * for its unambiguous forms: `repo:branch:path`, `branch:path`, or a path holding a '/' (no branch
 * name can). A bare word (`--into main`) could name a branch or a path, so it is refused with both
 * spellings to choose from, as is `--into` together with `--branch` or `--path`.
 */
export function parseDestination(ctx: CommandContext, source: string): ImportDestination {
  const into = ctx.string('into');
  const branch = ctx.string('branch');
  const target = ctx.string('path');
  if (into !== undefined && (branch !== undefined || target !== undefined)) {
    throw new UsageError('give either --into or --branch/--path, not both (--into is the older spelling)');
  }
  const given = into === undefined ? { repo: undefined, branch, path: target } : splitInto(into, ctx);
  return {
    repo: given.repo ?? ctx.repoPath,
    branch: given.branch || 'main',
    path: normalizePath(absolute(given.path || '/' + path.basename(source).replace(/\.(zarr|zr3|zarr3)$/i, ''))),
  };
}

const absolute = (p: string) => (p.startsWith('/') ? p : '/' + p);

interface GivenDestination {
  readonly repo: string | undefined;
  readonly branch: string | undefined;
  readonly path: string | undefined;
}

function splitInto(into: string, ctx: CommandContext): GivenDestination {
  const parts = into.split(':');
  if (parts.length > 3) throw new UsageError(`--into is repo:branch:path, got ${JSON.stringify(into)}`);
  if (parts.length === 3) return { repo: parts[0] ? ctx.resolvePath(parts[0]) : undefined, branch: parts[1], path: parts[2] };
  if (parts.length === 2) return { repo: undefined, branch: parts[0], path: parts[1] };
  if (into.includes('/')) return { repo: undefined, branch: undefined, path: into };
  const word = JSON.stringify(into);
  throw new UsageError(`--into ${word} is ambiguous: a branch or a path? write --branch ${into} (path: the store's name) or --path /${into} (branch: main)`);
}

export const importCommand: CommandSpec = {
  usage: '<store dir> [--branch NAME] [--path PATH] [-m MESSAGE]  |  <v3 store dir>... --distributed --queue NAME [--redis URL] [--write-id ID]',
  details: [
    '--branch NAME   the branch to commit to (default main)',
    "--path PATH     where the store's root goes (default: the store's directory name without .zarr, under /)",
    '--into R:B:P    the older spelling of --repo, --branch and --path (repo:branch:path, branch:path, or a path with a /); a bare word is refused as ambiguous',
    'Zarr v3 bytes are copied verbatim, and implicit groups (a root or a directory without zarr.json) become explicit ones;',
    'v1 arrays and v2 groups and arrays are converted.',
    '',
    '--distributed   import one or many Zarr v3 stores through `floe worker` processes (docs/distributed.md): commits the',
    '                stores\' groups and arrays first, then splits their chunk (or shard) objects into tasks on the queue and',
    '                commits every chunk the workers copied in one commit. Each store goes to /<its name> (--path: one store only).',
    '--queue NAME    the BullMQ queue the workers serve (required with --distributed)',
    '--redis URL     redis:// URL without a password (default: $FLOE_REDIS_URL, else redis://127.0.0.1:6379)',
    '--write-id ID   names the write (default: a new one, printed); run the same import with the same id to resume it',
    '--task-chunks N chunk objects per task at most (default 64); --task-bytes N: bytes per task at most (default 64 MiB)',
  ].join('\n'),
  examples: [
    'floe import ./era5.zarr --repo ./climate.icechunk --path /era5',
    'floe import ./legacy-v1-array --branch archive --path /legacy -m "import the 2009 archive"',
    'floe import /data/2025.zarr /data/2026.zarr --distributed --queue ingest --repo s3://bucket/climate.icechunk',
  ],
  options: {
    branch: { type: 'string' }, path: { type: 'string' }, into: { type: 'string' }, message: { type: 'string', short: 'm' },
    distributed: { type: 'boolean' }, queue: { type: 'string' }, redis: { type: 'string' }, 'write-id': { type: 'string' },
    'task-chunks': { type: 'string' }, 'task-bytes': { type: 'string' },
  },
  async run(ctx) {
    if (ctx.flags.distributed === true) return (await import('./import-distributed.ts')).runDistributedImport(ctx, parseDestination);
    for (const name of ['queue', 'redis', 'write-id', 'task-chunks', 'task-bytes']) {
      if (ctx.flags[name] !== undefined) throw new UsageError(`--${name} goes with --distributed`);
    }
    ctx.atMost(1);
    const source = ctx.resolvePath(ctx.positional(0, 'the store to import'));
    if (!existsSync(source) || !statSync(source).isDirectory()) throw floeError('NOT_FOUND', `${source} is not a directory holding a Zarr store`);
    const dest = parseDestination(ctx, source);
    refuseReadOnlyLocation(dest.repo, 'floe import');
    const src = new FsStorage({ root: source, durable: false });
    const request = ctx.request;
    const format = await sourceFormat(src, source, request);
    const repo = await openRepository(ctx, dest.repo);
    const session = await repo.writableSession(dest.branch, request);
    if (session.view().nodeAt(dest.path)) throw floeError('ALREADY_EXISTS', `${dest.path} already exists on ${dest.branch}; import into another path with --path`);
    await createParents(session, dest.path, request);
    const started = ctx.now();
    const summary = await copyInto(ctx, format, src, session, dest.path);
    const id = await session.commit(ctx.string('message') ?? `import ${path.basename(source)} into ${dest.path}`, { ...request });
    const result = { source, repository: dest.repo, branch: dest.branch, path: dest.path, snapshotId: id, seconds: (ctx.now() - started) / 1000, summary };
    if (ctx.json) return ctx.printJson(result);
    ctx.print(`imported ${source} into ${dest.branch}:${dest.path} (${summary}); committed ${id}`);
  },
};

async function copyInto(ctx: CommandContext, format: SourceFormat, src: FsStorage, session: Session, target: string): Promise<string> {
  const request = ctx.request;
  if (format === 'v3') return copyV3(ctx, src, session, target);
  if (format === 'v1') {
    const result = await convertV1ToV3(new StorageStore(src, { readOnly: true }), session.store, target, { ...request });
    return `converted a Zarr v1 array: ${result.chunksCopied} chunks copied, ${result.chunksReencoded} re-encoded`;
  }
  const result = await convertV2ToV3(new StorageStore(src, { readOnly: true }), session.store, target, { ...request });
  return `converted Zarr v2: ${result.groups} groups, ${result.arrays} arrays, ${result.chunksCopied} chunks copied, ${result.chunksReencoded} re-encoded`;
}

/** Metadata first, parents before children (a chunk key means something only once its array exists). */
async function copyV3(ctx: CommandContext, src: FsStorage, session: Session, target: string): Promise<string> {
  const request = ctx.request;
  const { metadata, chunks } = await listV3(src, request);
  const total = [...metadata, ...chunks].reduce((n, o) => n + o.size, 0);
  const progress = new Progress({ label: 'importing', total, unit: 'bytes', stream: ctx.io.stderr, now: () => ctx.now() });
  const prefix = keyPrefix(target);
  const implicit = await createImplicitGroups(session, metadata, prefix, request);
  let skipped = 0;
  const copy = async (key: string, size: number) => {
    const got = await src.get(key, undefined, request);
    if (!got) return; // deleted while we listed
    try {
      await session.store.set(prefix + key, got.bytes, request);
    } catch (err) {
      // Keys that are neither zarr.json nor a chunk of an array (.zattrs, stray files) have no place in a repository.
      if ((err as { code?: string }).code !== 'INVALID_KEY') throw err;
      skipped++;
    }
    progress.add(size);
  };
  for (const m of metadata) await copy(m.key, m.size);
  await mapLimit(chunks, DEFAULT_CONCURRENCY, (o) => copy(o.key, o.size));
  progress.finish();
  const made = implicit.length > 0 ? `, ${implicit.length} implicit group${implicit.length === 1 ? '' : 's'} made explicit` : '';
  return `${metadata.length} nodes, ${chunks.length - skipped} chunks${made}${skipped > 0 ? `, ${skipped} other files skipped` : ''}`;
}
