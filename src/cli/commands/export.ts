// `floe export ref:path <dir>`: writes a node of a version (an array or a whole group) out as a
// plain Zarr v3 store, bytes verbatim, with the node at the store's root.
import { readdirSync, existsSync } from 'node:fs';
import { floeError } from '../../errors.ts';
import { DEFAULT_CONCURRENCY, mapLimit } from '../../engine/storage/limiter.ts';
import { FsStorage } from '../../engine/storage/fs.ts';
import type { CommandSpec } from '../command.ts';
import { Progress } from '../progress.ts';
import { openRepository } from '../repository-location.ts';
import { openReadonly, parseTarget } from '../targets.ts';

export const exportCommand: CommandSpec = {
  usage: 'ref:path <dir>',
  details: 'The directory must be new or empty. Chunks are copied as stored (no re-encoding).',
  examples: ['floe export v1.0:/climate ./climate-v1.zarr', 'floe export main:/climate/temperature ./temperature.zarr'],
  async run(ctx) {
    ctx.atMost(2);
    const target = parseTarget(ctx.positional(0, 'what to export (ref:path)'));
    const dir = ctx.resolvePath(ctx.positional(1, 'the output directory'));
    if (existsSync(dir) && readdirSync(dir).length > 0) throw floeError('ALREADY_EXISTS', `${dir} is not empty; export into a new directory`);
    const repo = await openRepository(ctx);
    const request = ctx.request;
    const source = await openReadonly(repo, target.ref, request);
    if (!(await source.node(target.path, request))) throw floeError('NOT_FOUND', `no group or array at ${target.path} in ${target.ref}; see \`floe ls ${target.ref}\``);
    const prefix = target.path === '/' ? '' : target.path.slice(1) + '/';
    const keys: string[] = [];
    for await (const key of source.store.listPrefix(prefix, request)) keys.push(key);
    const out = new FsStorage({ root: dir, durable: false });
    const progress = new Progress({ label: 'exporting', total: keys.length, unit: 'items', stream: ctx.io.stderr, now: () => ctx.now() });
    let bytes = 0;
    await mapLimit(keys, DEFAULT_CONCURRENCY, async (key) => {
      const value = await source.store.get(key, request);
      if (value) {
        await out.put(key.slice(prefix.length), value, request);
        bytes += value.length;
      }
      progress.add(1);
    });
    progress.finish();
    const result = { ref: target.ref, snapshotId: source.snapshotId, path: target.path, directory: dir, keys: keys.length, bytes };
    if (ctx.json) return ctx.printJson(result);
    ctx.print(`exported ${target.ref}:${target.path} (${keys.length} keys, ${bytes} bytes) to ${dir}`);
  },
};
