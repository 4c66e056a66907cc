// Child process of bomb-rss.test.ts: reads one prepared bomb through Floe's public API and prints
// one JSON line { code, baselineBytes, peakBytes }: the error code (or "ok"), the RSS just before
// the read, and the process's peak RSS after it. Run under test/support/rss-watchdog.ts, which kills
// it by pid if the read inflates the bomb after all.
//
// argv: <kind: array | repo> <dir> <limits JSON for configureLimits> <decodePool: on | off> [warm-up array]
// The warm-up array (a good one, read first) starts the decode workers before the baseline, so
// the growth measured is the bomb's, not the pool's start-up.
import { configureLimits, FsStorage, isFloeError, openArray, openStore, Repository, Storage } from '../../src/index.ts';

const [kind, dir, limitsJson, pool, warmUp] = process.argv.slice(2);
if (!kind || !dir) throw new Error('usage: bomb-read-child.ts <array|repo> <dir> [limits JSON] [on|off]');
configureLimits(JSON.parse(limitsJson ?? '{}') as Record<string, number>);
const options = pool === 'on' ? {} : { decodePool: false as const };

async function openTarget() {
  if (kind === 'array') return openArray(openStore(dir!, { readOnly: true }), '/a', options);
  const repo = await Repository.open(Storage.fromObjectStorage(new FsStorage({ root: dir! })));
  const session = await repo.readonlySession({ branch: 'main' });
  return openArray(session.store, '/a', options);
}

let code = 'ok';
let baselineBytes = process.memoryUsage().rss;
try {
  const array = await openTarget();
  if (warmUp) await (await openArray(openStore(dir, { readOnly: true }), warmUp, options)).get();
  baselineBytes = process.memoryUsage().rss;
  await array.get();
} catch (err) {
  code = isFloeError(err) ? err.code : `non-Floe: ${String(err)}`;
}
const peakBytes = process.resourceUsage().maxRSS * 1024;
process.stdout.write(JSON.stringify({ code, baselineBytes, peakBytes }) + '\n');
