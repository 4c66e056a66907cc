// `floe conformance`: runs generated cases against Floe and a peer implementation and reports
// the first divergence with its shrunk case and a command that replays it (see docs/CONFORMANCE.md).
import { runConformance, type ConformancePeer } from '../../testing/conformance-command.ts';
import { UsageError, type CommandSpec } from '../command.ts';

const PEERS: readonly ConformancePeer[] = ['zarrita', 'icechunk'];

export const conformanceCommand: CommandSpec = {
  usage: '--against zarrita|icechunk [--runs N] [--seed S] [--path P]',
  details: [
    '--against  the peer: zarrita (plain Zarr v3 arrays) or icechunk (repository histories)',
    '--runs     how many generated cases (default 100)',
    '--seed     the fast-check seed (default: random, printed so a run can be repeated)',
    '--path     replay one shrunk case (printed with a divergence)',
    'The peers are devDependencies of Floe: install them with `npm install` in a checkout.',
  ].join('\n'),
  examples: ['floe conformance --against zarrita --runs 200 --seed 42', 'floe conformance --against icechunk --runs 20'],
  options: { against: { type: 'string' }, runs: { type: 'string' }, seed: { type: 'string' }, path: { type: 'string' } },
  async run(ctx) {
    ctx.atMost(0);
    const against = ctx.string('against');
    if (!PEERS.includes(against as ConformancePeer)) throw new UsageError(`--against must be one of ${PEERS.join(', ')}`);
    const runs = ctx.number('runs') ?? 100;
    if (!Number.isInteger(runs) || runs < 1) throw new UsageError('--runs must be a positive integer');
    const seed = ctx.number('seed') ?? Math.floor(Math.random() * 2 ** 31);
    const path = ctx.string('path');
    const result = await runConformance({ against: against as ConformancePeer, runs, seed, ...(path ? { path } : {}) });
    if (ctx.json) ctx.printJson({ against, runs: result.runs, seed, agree: !result.divergence, report: result.report });
    else ctx.print(result.report);
    return result.divergence ? 1 : 0;
  },
};
