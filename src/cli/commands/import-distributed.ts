// `floe import --distributed` (issue 32): the coordinator of an import of one or many Zarr v3
// stores through `floe worker` processes. Two commits: the stores' groups and arrays (zarr.json
// documents, small, written here), then every chunk in one distributed write whose tasks own
// their chunk (or shard) objects. Both commits carry keys derived from the write id, so running
// the same import again with the same --write-id resumes it and commits each at most once.
import { existsSync, statSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { floeError } from '../../errors.ts';
import { checkWriteId } from '../../distributed/names.ts';
import { FsStorage } from '../../engine/storage/fs.ts';
import type { Repository } from '../../txn/repository.ts';
import { UsageError, type CommandContext } from '../command.ts';
import { planImportTasks, type ImportSource } from '../distributed-import.ts';
import { formatBytes } from '../node-summary.ts';
import { Progress } from '../progress.ts';
import { openRepository, refuseReadOnlyLocation } from '../repository-location.ts';
import { createImplicitGroups, createParents, keyPrefix, listV3, sourceFormat, type SourceObject } from '../zarr-source.ts';
import { queueName, redisUrl } from './worker.ts';

/** Task size defaults: 64 chunk objects or 64 MiB, whichever comes first. */
export const DEFAULT_TASK_CHUNKS = 64;
export const DEFAULT_TASK_BYTES = 64 * 1024 * 1024;

/** The commit key of the import's first commit (its groups and arrays); the second is floe/distributed's. */
export const nodesCommitKey = (writeId: string): string => `floe-import-nodes-${writeId}`;

type Destination = (ctx: CommandContext, source: string) => { repo: string; branch: string; path: string };

interface Store {
  source: string;
  path: string;
  src: FsStorage;
  metadata: SourceObject[];
  chunks: SourceObject[];
}

function wholeOption(ctx: CommandContext, name: string, fallback: number): number {
  const n = ctx.number(name);
  if (n === undefined) return fallback;
  if (!Number.isSafeInteger(n) || n < 1) throw new UsageError(`--${name} takes a whole number >= 1, got ${n}`);
  return n;
}

export async function runDistributedImport(ctx: CommandContext, destination: Destination): Promise<void> {
  if (ctx.positionals.length === 0) throw new UsageError('missing the store(s) to import');
  const sources = ctx.positionals.map((p) => ctx.resolvePath(p));
  if (sources.length > 1 && (ctx.string('path') !== undefined || ctx.string('into') !== undefined)) {
    throw new UsageError('--path and --into name one store\'s place; with several stores each goes to /<its directory name>');
  }
  const queue = { name: queueName(ctx), redis: redisUrl(ctx) };
  const writeId = checkWriteId(ctx.string('write-id') ?? randomUUID());
  const limits = { chunks: wholeOption(ctx, 'task-chunks', DEFAULT_TASK_CHUNKS), bytes: wholeOption(ctx, 'task-bytes', DEFAULT_TASK_BYTES) };
  const request = ctx.request;
  const stores: Store[] = [];
  let dest: { repo: string; branch: string } | undefined;
  for (const source of sources) {
    if (!existsSync(source) || !statSync(source).isDirectory()) throw floeError('NOT_FOUND', `${source} is not a directory holding a Zarr store`);
    const d = destination(ctx, source);
    dest ??= d;
    if (stores.some((s) => s.path === d.path)) throw new UsageError(`two stores would go to ${d.path}; rename a directory or import them separately`);
    const src = new FsStorage({ root: source, durable: false });
    const format = await sourceFormat(src, source, request);
    if (format !== 'v3') throw floeError('UNSUPPORTED', `${source} is a Zarr ${format} store; --distributed imports Zarr v3 stores (bytes verbatim): import it without --distributed (it is converted), or convert it first`, { where: source });
    stores.push({ source, path: d.path, src, ...(await listV3(src, request)) });
  }
  refuseReadOnlyLocation(dest!.repo, 'floe import');
  const { branch } = dest!;
  const repo = await openRepository(ctx, dest!.repo);
  const message = ctx.string('message') ?? `import ${sources.map((s) => path.basename(s)).join(', ')}`;
  const started = ctx.now();

  const nodes = await commitNodes(ctx, repo, branch, stores, writeId, message);
  const tasks = planImportTasks(stores.map((s): ImportSource => ({ source: s.source, prefix: keyPrefix(s.path), chunks: s.chunks })), limits);
  const taskBytes = tasks.map((t) => {
    const store = stores.find((s) => s.source === t.source)!;
    const sizes = new Map(store.chunks.map((c) => [c.key, c.size]));
    return t.keys.reduce((n, k) => n + (sizes.get(k) ?? 0), 0);
  });
  const total = taskBytes.reduce((a, b) => a + b, 0);
  ctx.note(`floe import: write ${writeId}: ${tasks.length} task${tasks.length === 1 ? '' : 's'} (${formatBytes(total)}) on queue ${queue.name}; rerun with --write-id ${writeId} to resume it`);
  let snapshotId = nodes.snapshotId;
  let alreadyCommitted = false;
  let tasksDone = 0;
  if (tasks.length > 0) {
    const { distributedWrite } = await import('../../distributed/index.ts');
    const progress = new Progress({ label: 'importing', total, unit: 'bytes', stream: ctx.io.stderr, now: () => ctx.now(), detail: () => `${tasksDone}/${tasks.length} tasks` });
    const result = await distributedWrite(repo, {
      branch, queue, tasks, message, writeId, ...(request.signal ? { signal: request.signal } : {}),
      onProgress(p) {
        if (p.phase !== 'task-done' || !p.task) return;
        tasksDone = p.tasksDone;
        progress.add(taskBytes[p.task.task] ?? 0);
      },
    });
    progress.finish(`${tasks.length} tasks`);
    snapshotId = result.snapshotId;
    alreadyCommitted = result.alreadyCommitted;
  }
  const out = {
    sources, repository: dest!.repo, branch, paths: stores.map((s) => s.path), writeId, tasks: tasks.length, bytes: total,
    nodesSnapshotId: nodes.snapshotId, snapshotId, alreadyCommitted: nodes.already && alreadyCommitted, seconds: (ctx.now() - started) / 1000,
  };
  if (ctx.json) return ctx.printJson(out);
  const chunks = stores.reduce((n, s) => n + s.chunks.length, 0);
  ctx.print(`imported ${stores.map((s) => `${s.source} into ${branch}:${s.path}`).join(', ')} (${stores.reduce((n, s) => n + s.metadata.length, 0)} nodes, ${chunks} chunk objects in ${tasks.length} tasks); committed ${snapshotId}${alreadyCommitted ? ' (by an earlier run of this write)' : ''}`);
}

/** The first commit: every store's groups and arrays, once (an earlier run's commit is found by its key). */
async function commitNodes(ctx: CommandContext, repo: Repository, branch: string, stores: readonly Store[], writeId: string, message: string): Promise<{ snapshotId: string; already: boolean }> {
  const request = ctx.request;
  const key = nodesCommitKey(writeId);
  const earlier = await repo.lookupCommit(key, { branch, ...request });
  if (earlier.committed) return { snapshotId: earlier.snapshotId, already: true };
  const session = await repo.writableSession(branch, request);
  for (const store of stores) {
    if (session.view().nodeAt(store.path)) throw floeError('ALREADY_EXISTS', `${store.path} already exists on ${branch}; import into another path with --path (or resume an import with its --write-id)`);
    await createParents(session, store.path, request);
    const prefix = keyPrefix(store.path);
    await createImplicitGroups(session, store.metadata, prefix, request);
    for (const m of store.metadata) {
      const got = await store.src.get(m.key, undefined, request);
      if (got) await session.store.set(prefix + m.key, got.bytes, request);
    }
  }
  const snapshotId = await session.commit(`${message} (groups and arrays; the chunks follow in distributed write ${writeId})`, { ...request, commitKey: key });
  return { snapshotId, already: false };
}
