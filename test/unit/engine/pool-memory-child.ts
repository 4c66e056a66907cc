// Child process of pool-memory.test.ts: reads one local array through the decode pool `reads`
// times, dropping each result, and prints one JSON line with the RSS after each read (after a
// collection here and a pause longer than the workers' idle release). Run without --expose-gc, so
// the workers take their collector the way they do in an application.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { sharedDecodePool } from '../../../src/engine/decode-pool.ts';
import { openArray, openStore } from '../../../src/index.ts';

const [dir, readsText] = process.argv.slice(2);
if (!dir) throw new Error('usage: pool-memory-child.ts <dir> <reads>');
setFlagsFromString('--expose-gc');
const collect = runInNewContext('gc') as () => void;
setFlagsFromString('--no-expose-gc');

const array = await openArray(openStore(dir, { readOnly: true }), '/a');
const rss: number[] = [];
for (let i = 0; i < Number(readsText ?? 6); i++) {
  let result: { data: unknown } | undefined = await array.get();
  result = undefined;
  collect();
  await new Promise((resolve) => setTimeout(resolve, 400));
  collect();
  rss.push(process.memoryUsage().rss);
}
console.log(JSON.stringify({ rss, chunksSent: sharedDecodePool()?.chunksSent ?? 0 }));
process.exit(0);
