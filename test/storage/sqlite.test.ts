import { describe, expect, it } from 'vitest';
import { makeSqliteStorage } from './backends.ts';
import { defineStorageContract } from './contract.ts';
import { defineModelTest } from './model.ts';
import { RACE_TEST_TIMEOUT_MS, runCasRace } from './race.ts';

defineStorageContract('sqlite', async () => makeSqliteStorage());
defineModelTest('sqlite', async () => makeSqliteStorage(), { numRuns: 40, maxCommands: 30 });

describe('sqlite backend under several OS processes', () => {
  it('has exactly one winner per round and loses no update', async () => {
    const { storage, file, cleanup } = makeSqliteStorage();
    try {
      // SQLite serialises writers on its lock, so fewer attempts lose than on fs; no lower bound.
      const result = await runCasRace(storage, { kind: 'sqlite', file }, 6, 200);
      expect(result.rounds).toBe(200);
    } finally {
      await storage.close();
      await cleanup();
    }
  }, RACE_TEST_TIMEOUT_MS);
});
