// `floe check`: reads every snapshot a branch or tag reaches and reports what readers skip
// silently (today: chunk refs outside their array's grid). Exit 1 when it finds any, so scripts
// and CI can gate on it.
import type { CommandSpec } from '../command.ts';
import { openRepository } from '../repository-location.ts';

const SHOWN = 20;

export const checkCommand: CommandSpec = {
  usage: '',
  details: 'Exit status 0: nothing found; 1: problems found (listed) or the check could not run.',
  examples: ['floe check', 'floe check --repo ./climate.icechunk --json'],
  async run(ctx) {
    ctx.atMost(0);
    const repo = await openRepository(ctx);
    const report = await repo.verify(ctx.request);
    const clean = report.outOfGridRefs.length === 0;
    if (ctx.json) {
      ctx.printJson(report);
      return clean ? 0 : 1;
    }
    ctx.print(`checked ${report.snapshotsChecked} snapshots, ${report.arrayManifestsChecked} array manifests`);
    if (clean) {
      ctx.print('no problems found');
      return 0;
    }
    const count = `${report.outOfGridRefs.length}${report.truncated ? '+' : ''}`;
    ctx.print(`${count} chunk refs outside their array's grid (readers ignore them; the manifest disagrees with the array's shape):`);
    for (const f of report.outOfGridRefs.slice(0, SHOWN)) {
      ctx.print(`  snapshot ${f.snapshotId} ${f.arrayPath} index [${f.index.join(', ')}] outside grid [${f.grid.join(', ')}] (manifest ${f.manifestId})`);
    }
    if (report.outOfGridRefs.length > SHOWN) ctx.print(`  … ${report.outOfGridRefs.length - SHOWN} more (--json lists them)`);
    return 1;
  },
};
