// One OS process of the multi-process CAS race (run by race.ts through tsx). It opens the backend
// named in argv[2] (JSON), waits for the start time, then keeps trying to advance the shared
// counter object by a conditional update until it reaches the target round or the deadline.
// It prints one JSON line: the rounds it won and how many attempts lost.
import { isFloeError } from '../../src/errors.ts';
import type { ObjectStorage } from '../../src/engine/storage/types.ts';
import { openRaceStorage, type RaceBackend } from './race-backends.ts';

interface Counter {
  round: number;
  writers: string[];
}

const config = JSON.parse(process.argv[2] ?? '{}') as { backend: RaceBackend; key: string; id: string; target: number; startAt: number; deadline: number };

async function main(): Promise<void> {
  const storage: ObjectStorage = await openRaceStorage(config.backend);
  const won: number[] = [];
  let lost = 0;
  while (Date.now() < config.startAt) await new Promise((r) => setTimeout(r, 2));
  while (Date.now() < config.deadline) {
    const current = await storage.get(config.key);
    if (!current) throw new Error('counter object missing');
    const counter = JSON.parse(new TextDecoder().decode(current.bytes)) as Counter;
    if (counter.round >= config.target) break;
    const next: Counter = { round: counter.round + 1, writers: [...counter.writers, config.id] };
    try {
      await storage.put(config.key, new TextEncoder().encode(JSON.stringify(next)), { ifMatch: current.version });
      won.push(next.round);
    } catch (err) {
      if (!isFloeError(err, 'PRECONDITION_FAILED')) throw err;
      lost += 1;
    }
  }
  await storage.close();
  process.stdout.write(`${JSON.stringify({ id: config.id, won, lost })}\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
