// The CAS race with the writers in this process: for backends no other process can open (memory).
// Each writer reads the counter, lets the event loop run a random number of turns (so the
// writers' reads and writes interleave), then tries a conditional update, until the counter
// reaches the target round. The verdict is the multi-process race's (race.ts: checkRace).
import { isFloeError } from '../../src/errors.ts';
import type { ObjectStorage } from '../../src/engine/storage/types.ts';
import { RACE_KEY, checkRace, resetRaceCounter, type RaceResult, type WriterReport } from './race.ts';
import { rng } from '../../src/testing/arbitraries/seeded-random.ts'; // seeded, so a failing race replays

export interface InProcessRaceOptions {
  writers: number;
  rounds: number;
  /** Most event-loop turns a writer yields between its read and its write. Default 3. */
  maxYield?: number;
  seed?: number;
}

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

async function writer(storage: ObjectStorage, id: string, options: InProcessRaceOptions, random: () => number): Promise<WriterReport> {
  const won: number[] = [];
  let lost = 0;
  // Bounded: a writer gives up after this many attempts (a broken CAS might never finish).
  const maxAttempts = options.rounds * options.writers * 20;
  for (let attempt = 0; attempt < maxAttempts; attempt++) {
    const current = await storage.get(RACE_KEY);
    if (!current) throw new Error('counter object missing');
    const counter = JSON.parse(new TextDecoder().decode(current.bytes)) as { round: number; writers: string[] };
    if (counter.round >= options.rounds) break;
    const next = { round: counter.round + 1, writers: [...counter.writers, id] };
    for (let i = Math.floor(random() * ((options.maxYield ?? 3) + 1)); i > 0; i--) await turn();
    try {
      await storage.put(RACE_KEY, new TextEncoder().encode(JSON.stringify(next)), { ifMatch: current.version });
      won.push(next.round);
    } catch (err) {
      if (!isFloeError(err, 'PRECONDITION_FAILED')) throw err;
      lost += 1;
    }
  }
  return { id, won, lost };
}

export async function runInProcessCasRace(storage: ObjectStorage, options: InProcessRaceOptions): Promise<RaceResult> {
  await resetRaceCounter(storage);
  const random = rng(options.seed ?? 1);
  const started = performance.now();
  const reports = await Promise.all(Array.from({ length: options.writers }, (_, i) => writer(storage, `w${i}`, options, random)));
  return checkRace(storage, reports, options.rounds, (performance.now() - started) / 1000, 'async writers in one process');
}
