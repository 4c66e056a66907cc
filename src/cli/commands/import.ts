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
import { openRepository } from '../repository-location.ts';

export interface ImportDestination {
  readonly repo: string;
  readonly branch: string;
  readonly path: string;
}

/** `--into repo:branch:path`, `branch:path` or `path`; the rest from --repo, main and the source's name. */
export function parseDestination(into: string | undefined, ctx: CommandContext, source: string): ImportDestination {
  const fallbackPath = '/' + path.basename(source).replace(/\.(zarr|zr3|zarr3)$/i, '');
  const parts = into === undefined ? [] : into.split(':');
  if (parts.length > 3) throw new UsageError(`--into is repo:branch:path, got ${JSON.stringify(into)}`);
  const [repo, branch, p] = parts.length === 3 ? parts : parts.length === 2 ? [undefined, ...parts] : [undefined, undefined, parts[0]];
  return {
    repo: repo ? ctx.resolvePath(repo) : ctx.repoPath,
    branch: branch || 'main',
    path: normalizePath(p ? (p.startsWith('/') ? p : '/' + p) : fallbackPath),
  };
}

export const importCommand: CommandSpec = {
  usage: '<store dir> [--into repo:branch:path] [-m MESSAGE]',
  details: 'The path defaults to the store\'s directory name (without .zarr) under /, the branch to main. Zarr v3 bytes are copied verbatim; v1 arrays and v2 groups and arrays are converted.',
  examples: ['floe import ./era5.zarr --into ./climate.icechunk:main:/era5', 'floe import ./legacy-v1-array --into main:/legacy -m "import the 2009 archive"'],
  options: { into: { type: 'string' }, message: { type: 'string', short: 'm' } },
  async run(ctx) {
    ctx.atMost(1);
    const source = ctx.resolvePath(ctx.positional(0, 'the store to import'));
    if (!existsSync(source) || !statSync(source).isDirectory()) throw floeError('NOT_FOUND', `${source} is not a directory holding a Zarr store`);
    const dest = parseDestination(ctx.string('into'), ctx, source);
    const src = new FsStorage({ root: source, durable: false });
    const request = ctx.request;
    const repo = await openRepository(ctx, dest.repo);
    const session = await repo.writableSession(dest.branch, request);
    if (session.view().nodeAt(dest.path)) throw floeError('ALREADY_EXISTS', `${dest.path} already exists on ${dest.branch}; import into another path with --into`);
    await createParents(session, dest.path, request);
    const started = ctx.now();
    let summary: string;
    if (await src.head('zarr.json', request)) summary = await copyV3(ctx, src, session, dest.path);
    else if (await src.head(V1_META_KEY, request)) {
      const result = await convertV1ToV3(new StorageStore(src, { readOnly: true }), session.store, dest.path, { ...request });
      summary = `converted a Zarr v1 array: ${result.chunksCopied} chunks copied, ${result.chunksReencoded} re-encoded`;
    } else if ((await src.head('.zgroup', request)) || (await src.head('.zarray', request))) {
      const result = await convertV2ToV3(new StorageStore(src, { readOnly: true }), session.store, dest.path, { ...request });
      summary = `converted Zarr v2: ${result.groups} groups, ${result.arrays} arrays, ${result.chunksCopied} chunks copied, ${result.chunksReencoded} re-encoded`;
    } else throw floeError('NOT_FOUND', `${source} has neither zarr.json (Zarr v3), .zgroup or .zarray (Zarr v2) nor meta (Zarr v1) at its root`);
    const id = await session.commit(ctx.string('message') ?? `import ${path.basename(source)} into ${dest.path}`, { ...request });
    const result = { source, repository: dest.repo, branch: dest.branch, path: dest.path, snapshotId: id, seconds: (ctx.now() - started) / 1000, summary };
    if (ctx.json) return ctx.printJson(result);
    ctx.print(`imported ${source} into ${dest.branch}:${dest.path} (${summary}); committed ${id}`);
  },
};

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
  return `${metadata.length} nodes, ${chunks.length - skipped} chunks${skipped > 0 ? `, ${skipped} other files skipped` : ''}`;
}
