// Child process of pool-memory.test.ts: reads one local array through the decode pool `reads`
// times, dropping each result, and prints one JSON line with the RSS before the reads (after a
// warm-up read), after each read, and once more a second after the last.
// - mode `idle`: after each read this thread collects and waits, up to IDLE_WAIT_MS, for RSS to
//   come back within half a result of where it started; what stays resident after that is what
//   the workers hold. The test runs this child with V8's memory reducer off, so no idle-time
//   collection of V8's own frees the workers' wrappers: only Floe's collections can.
// - mode `busy`: reads back to back with no collection here and `sharedResultSlackBytes` set to
//   `slack`, so what stays resident is bounded only by Floe's own collections.
// Run without --expose-gc: the workers take their collector as they do in an application.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { sharedDecodePool } from '../../../src/engine/decode-pool.ts';
import { configureLimits, openArray, openStore } from '../../../src/index.ts';

const [dir, mode, readsText, slackText] = process.argv.slice(2);
if (!dir || (mode !== 'idle' && mode !== 'busy')) throw new Error('usage: pool-memory-child.ts <dir> <idle|busy> <reads> [slack bytes]');
if (slackText) configureLimits({ sharedResultSlackBytes: Number(slackText) });
setFlagsFromString('--expose-gc');
const collect = runInNewContext('gc') as () => void;
setFlagsFromString('--no-expose-gc');

/** How long an idle pause waits for the memory to return (a loaded machine frees late). */
const IDLE_WAIT_MS = 4000;
const settledBytes = 64 * 2 ** 20;

async function settle(belowBytes: number): Promise<void> {
  const until = Date.now() + IDLE_WAIT_MS;
  do {
    collect();
    await new Promise((resolve) => setTimeout(resolve, 100));
  } while (process.memoryUsage().rss >= belowBytes && Date.now() < until);
}

const array = await openArray(openStore(dir, { readOnly: true }), '/a');
// A first read starts the workers (the pool starts them after a read of 64 MiB or more); reads
// go to them once they are ready.
await array.get();
await new Promise((resolve) => setTimeout(resolve, 1500));
collect();
const rss: number[] = [process.memoryUsage().rss];
for (let i = 0; i < Number(readsText ?? 6); i++) {
  let result: { data: unknown } | undefined = await array.get();
  result = undefined;
  if (mode === 'idle') await settle(rss[0]! + settledBytes);
  rss.push(process.memoryUsage().rss);
}
// V8 frees dropped buffers' memory on a background thread, which a loaded machine may run late:
// the last figure is taken after a pause.
await new Promise((resolve) => setTimeout(resolve, 1000));
rss.push(process.memoryUsage().rss);
console.log(JSON.stringify({ rss, chunksSent: sharedDecodePool()?.chunksSent ?? 0 }));
process.exit(0);
