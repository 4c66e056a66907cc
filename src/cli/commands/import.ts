// `floe import <store>`: copies a plain Zarr v3 store (a hierarchy or one array) into the
// repository as one commit, bytes verbatim; a Zarr v1 array or a Zarr v2 hierarchy is converted
// to v3 on the way (src/engine/convert.ts, convert-v2.ts). The source directory is only read.
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { floeError } from '../../errors.ts';
import { convertV1ToV3 } from '../../engine/convert.ts';
import { convertV2ToV3 } from '../../engine/convert-v2.ts';
import { DEFAULT_CONCURRENCY, mapLimit } from '../../engine/storage/limiter.ts';
import { ZarrGroup } from '../../engine/group.ts';
import { FsStorage } from '../../engine/storage/fs.ts';
import { StorageStore } from '../../engine/store.ts';
import type { AbortOptions } from '../../engine/storage/types.ts';
import { V1_META_KEY } from '../../engine/v1-array.ts';
import { normalizePath } from '../../format/zarr/paths.ts';
import type { Session } from '../../txn/index.ts';
import { UsageError, type CommandContext, type CommandSpec } from '../command.ts';
import { Progress } from '../progress.ts';
import { openRepository, refuseReadOnlyLocation } from '../repository-location.ts';

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

type SourceFormat = 'v3' | 'v1' | 'v2';

export const importCommand: CommandSpec = {
  usage: '<store dir> [--branch NAME] [--path PATH] [-m MESSAGE]',
  details: [
    '--branch NAME   the branch to commit to (default main)',
    "--path PATH     where the store's root goes (default: the store's directory name without .zarr, under /)",
    '--into R:B:P    the older spelling of --repo, --branch and --path (repo:branch:path, branch:path, or a path with a /); a bare word is refused as ambiguous',
    'Zarr v3 bytes are copied verbatim, and implicit groups (a root or a directory without zarr.json) become explicit ones;',
    'v1 arrays and v2 groups and arrays are converted.',
  ].join('\n'),
  examples: ['floe import ./era5.zarr --repo ./climate.icechunk --path /era5', 'floe import ./legacy-v1-array --branch archive --path /legacy -m "import the 2009 archive"'],
  options: { branch: { type: 'string' }, path: { type: 'string' }, into: { type: 'string' }, message: { type: 'string', short: 'm' } },
  async run(ctx) {
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

/**
 * What the store is, by its root: zarr.json (v3), meta (v1), .zgroup or .zarray (v2); failing
 * those, a zarr.json further down makes it a v3 store whose root is an implicit group.
 */
async function sourceFormat(src: FsStorage, source: string, request: AbortOptions): Promise<SourceFormat> {
  if (await src.head('zarr.json', request)) return 'v3';
  if (await src.head(V1_META_KEY, request)) return 'v1';
  if ((await src.head('.zgroup', request)) || (await src.head('.zarray', request))) return 'v2';
  for await (const info of src.list('', request)) if (info.key.endsWith('/zarr.json')) return 'v3';
  throw floeError('NOT_FOUND', `${source} has neither zarr.json (Zarr v3, at its root or below), .zgroup or .zarray (Zarr v2) nor meta (Zarr v1) at its root`);
}

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

/** The root and every group above `target` (Icechunk keeps explicit groups only). */
async function createParents(session: Session, target: string, request: AbortOptions): Promise<void> {
  const parts = target.split('/').filter(Boolean);
  for (let i = 0; i < parts.length; i++) {
    const parent = normalizePath('/' + parts.slice(0, i).join('/'));
    if (!session.view().nodeAt(parent)) await ZarrGroup.create(session.store, parent, { ...request });
  }
}

/** Metadata first, parents before children (a chunk key means something only once its array exists). */
async function copyV3(ctx: CommandContext, src: FsStorage, session: Session, target: string): Promise<string> {
  const request = ctx.request;
  const objects = [];
  for await (const info of src.list('', request)) objects.push(info);
  const depth = (key: string) => key.split('/').length;
  const metadata = objects.filter((o) => o.key === 'zarr.json' || o.key.endsWith('/zarr.json')).sort((a, b) => depth(a.key) - depth(b.key));
  const chunks = objects.filter((o) => !metadata.includes(o));
  const total = objects.reduce((n, o) => n + o.size, 0);
  const progress = new Progress({ label: 'importing', total, unit: 'bytes', stream: ctx.io.stderr, now: () => ctx.now() });
  const prefix = target === '/' ? '' : target.slice(1) + '/';
  const implicit = implicitGroups(metadata.map((m) => m.key));
  for (const dir of implicit) await ZarrGroup.create(session.store, normalizePath('/' + prefix + dir), { ...request });
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

/**
 * Directories (relative, '' for the root) above some zarr.json that have none of their own:
 * Zarr v3 implicit groups. Icechunk keeps explicit groups only, so the import writes them; parents first.
 */
export function implicitGroups(metadataKeys: readonly string[]): string[] {
  const explicit = new Set(metadataKeys.map((key) => key.slice(0, -'zarr.json'.length).replace(/\/$/, '')));
  const needed = new Set<string>();
  for (const dir of explicit) {
    const parts = dir === '' ? [] : dir.split('/');
    for (let i = 0; i < parts.length; i++) {
      const above = parts.slice(0, i).join('/');
      if (!explicit.has(above)) needed.add(above);
    }
  }
  const depth = (dir: string) => (dir === '' ? 0 : dir.split('/').length);
  return [...needed].sort((a, b) => depth(a) - depth(b) || (a < b ? -1 : 1));
}
