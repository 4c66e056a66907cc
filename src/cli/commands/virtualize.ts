// `floe virtualize FILES...`: records NetCDF-3 files and kerchunk references in the repository as
// arrays whose chunks stay in those files (virtual refs), one commit (src/txn/virtualize.ts does
// the work). The files' directory needs a virtual chunk container in the repository's
// configuration: the command names the missing ones and adds them only with --yes. Reading the
// arrays back needs `--allow-virtual PREFIX` (or FLOE_ALLOW_VIRTUAL) on the read commands.
import { floeError, isFloeError } from '../../errors.ts';
import { virtualize } from '../../txn/virtual-datasets.ts';
import type { VirtualizeResult } from '../../txn/virtualize.ts';
import { UsageError, type CommandSpec } from '../command.ts';
import { Progress } from '../progress.ts';
import { openRepository } from '../repository-location.ts';

export const virtualizeCommand: CommandSpec = {
  usage: 'FILES... [--concat DIM [--new-dim]] [--branch NAME] [--path PATH] [--allow-floe-only-codecs] [-m MESSAGE] [--yes]',
  details: [
    'HDF5 / NetCDF-4 files, NetCDF-3 files (classic, 64-bit offset, CDF-5: the structure is read, never the data) and kerchunk references',
    '(version 0 and 1 JSON) become Zarr v3 arrays whose chunks are byte ranges of the files; one commit.',
    'FILES are local paths or http(s):// URLs (read with ranged requests; the refs record the ETag).',
    '--branch NAME          the branch to commit to (default main)',
    "--path PATH            the group the variables go under (default /; with several files, one group per file below it)",
    '--max-chunk-bytes N    split contiguous NetCDF-3 variables into chunks of at most N bytes (default 8 MiB)',
    "--yes                  add the virtual chunk containers the files need to the repository's configuration",
    '--concat DIM           join the files into one set of arrays along the dimension DIM (in the order given),',
    '                       under --path; coordinate variables are stored in the repository (label queries need no file)',
    '--new-dim              with --concat: DIM is a new leading dimension, one position per file',
    "--allow-floe-only-codecs  import HDF5 variables compressed with HDF5's LZ4 framing (filter 32004) or h5py's LZF",
    '                       (32000) through codecs only Floe has (floe.hdf5_lz4, floe.lzf): Floe reads those arrays,',
    '                       zarr-python, zarrita and the reference Icechunk cannot (default: such variables are skipped)',
    'Variables that cannot be referenced are listed with the reason; the rest is imported.',
    'Read the arrays with --allow-virtual PREFIX (or FLOE_ALLOW_VIRTUAL=PREFIX; "all": every container configured).',
  ].join('\n'),
  examples: [
    'floe virtualize --repo ./cube.icechunk ./archive/*.nc -m "virtualize the archive" --yes',
    'floe virtualize --repo ./cube.icechunk ./archive/*.nc --concat time -m "one cube" --yes',
    'floe cat --repo ./cube.icechunk --allow-virtual file:///data/archive/ main:/temp[0]',
  ],
  options: {
    branch: { type: 'string' }, path: { type: 'string' }, message: { type: 'string', short: 'm' }, yes: { type: 'boolean' },
    concat: { type: 'string' }, 'new-dim': { type: 'boolean' }, 'max-chunk-bytes': { type: 'string' }, 'allow-floe-only-codecs': { type: 'boolean' },
  },
  async run(ctx) {
    const concat = ctx.string('concat');
    if (concat !== undefined && concat.trim() === '') throw new UsageError('--concat takes a dimension name');
    if (ctx.flags['new-dim'] === true && concat === undefined) throw new UsageError('--new-dim goes with --concat DIM');
    if (ctx.positionals.length === 0) throw new UsageError('name at least one file to virtualize');
    const maxChunkBytes = ctx.number('max-chunk-bytes');
    if (maxChunkBytes !== undefined && (!Number.isSafeInteger(maxChunkBytes) || maxChunkBytes < 1)) throw new UsageError('--max-chunk-bytes takes a positive integer');
    const files = ctx.positionals.map((f) => (/^https?:\/\//i.test(f) ? f : ctx.resolvePath(f)));
    const branch = ctx.string('branch') ?? 'main';
    const target = ctx.string('path');
    const repo = await openRepository(ctx);
    const session = await repo.writableSession(branch, ctx.request);
    // Each file scanned, then each destination recorded (one when combining).
    const progress = new Progress({ label: 'virtualizing', total: files.length + (concat !== undefined ? 1 : files.length), unit: 'items', stream: ctx.io.stderr, now: () => ctx.now() });
    let result: VirtualizeResult;
    try {
      result = await virtualize(session, files, {
        ...ctx.request, repository: repo, addContainers: ctx.flags.yes === true,
        ...(target !== undefined ? { path: target } : {}), ...(concat !== undefined ? { concat: { dim: concat, new: ctx.flags['new-dim'] === true } } : {}), ...(maxChunkBytes ? { maxChunkBytes } : {}),
        ...(ctx.flags['allow-floe-only-codecs'] === true ? { allowFloeOnlyCodecs: true } : {}),
        onProgress: () => progress.add(1),
      });
    } catch (err) {
      if (isFloeError(err, 'UNAUTHORIZED') && err.details.reason === 'virtual-chunk-no-container') {
        throw floeError('UNAUTHORIZED', `${err.message.replace(/;.*$/, '')}; run again with --yes to add it to the repository's configuration (nothing was changed)`, { where: err.where, details: err.details, cause: err });
      }
      throw err;
    }
    progress.finish();
    const chunks = result.imported.reduce((n, v) => n + v.virtualChunks, 0);
    const stored = result.imported.reduce((n, v) => n + v.storedChunks, 0);
    const message = ctx.string('message') ?? `virtualize ${files.length} file${files.length === 1 ? '' : 's'}`;
    const id = result.imported.length > 0 ? await session.commit(message, { ...ctx.request }) : undefined;
    if (ctx.json) return ctx.printJson({ branch, snapshotId: id ?? null, ...result });
    for (const added of result.containersAdded) ctx.print(`added the virtual chunk container ${added} to the configuration`);
    for (const s of result.skipped) ctx.print(`skipped ${s.source}: ${s.variable}: ${s.reason}`);
    const what = `${result.imported.length} variable${result.imported.length === 1 ? '' : 's'} from ${result.sources.length} file${result.sources.length === 1 ? '' : 's'} (${chunks} virtual chunks${stored > 0 ? `, ${stored} stored` : ''})`;
    if (!id) {
      ctx.print(`nothing to commit: ${what}`);
      return 1;
    }
    ctx.print(`virtualized ${what} into ${branch}; committed ${id}`);
    const prefixes = Object.values(repo.config.virtualChunkContainers ?? {}).map((c) => c.urlPrefix);
    if (prefixes.length > 0) ctx.note(`read them with --allow-virtual PREFIX (e.g. ${prefixes[0]}) or FLOE_ALLOW_VIRTUAL=all`);
  },
};
