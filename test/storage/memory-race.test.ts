// The rounds-based CAS race on the memory backend, with the writers in one process (race-in-process.ts).
import { describe, expect, it } from 'vitest';
import { MemoryStorage } from '../../src/engine/storage/memory.ts';
import type { ObjectStorage } from '../../src/engine/storage/types.ts';
import { wrapStorage } from '../../src/engine/storage/wrap.ts';
import { runInProcessCasRace } from './race-in-process.ts';

describe('memory backend under racing writers', () => {
  it('has exactly one winner per round and loses no update', async () => {
    const result = await runInProcessCasRace(new MemoryStorage(), { writers: 6, rounds: 200 });
    expect(result.rounds).toBe(200);
    expect(result.lostAttempts).toBeGreaterThan(0); // the writers really raced
  });

  it('holds with many writers and more interleaving', async () => {
    const result = await runInProcessCasRace(new MemoryStorage(), { writers: 32, rounds: 500, maxYield: 8, seed: 7 });
    expect(result.lostAttempts).toBeGreaterThan(500);
  });

  it('catches a backend that ignores ifMatch: the race check fails', async () => {
    const memory = new MemoryStorage();
    // Drops the condition: several writers win a round, and their updates overwrite each other.
    const ignoresIfMatch: ObjectStorage = { ...wrapStorage(memory, (_call, run) => run()), put: (key, bytes) => memory.put(key, bytes) };
    await expect(runInProcessCasRace(ignoresIfMatch, { writers: 4, rounds: 50 })).rejects.toMatchObject({ name: 'AssertionError' });
  });
});
