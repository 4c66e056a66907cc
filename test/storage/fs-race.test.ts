import { describe, expect, it } from 'vitest';
import { makeFsStorage } from './backends.ts';
import { RACE_TEST_TIMEOUT_MS, runCasRace } from './race.ts';

describe('fs backend under several OS processes', () => {
  it('has exactly one winner per round and loses no update', async () => {
    const { storage, cleanup } = makeFsStorage();
    try {
      const result = await runCasRace(storage, { kind: 'fs', root: storage.root }, 6, 200);
      expect(result.lostAttempts).toBeGreaterThan(0); // the writers really raced
    } finally {
      await cleanup();
    }
  }, RACE_TEST_TIMEOUT_MS);
});
