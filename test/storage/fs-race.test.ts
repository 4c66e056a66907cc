import { describe, expect, it } from 'vitest';
import { makeFsStorage } from './backends.ts';
import { RACE_TEST_TIMEOUT_MS, runCasRace } from './race.ts';

describe('fs backend under several OS processes', () => {
  it('has exactly one winner per round and loses no update', async () => {
    const { storage, cleanup } = makeFsStorage();
    try {
      // On a starved machine the processes can run one after another and never meet: race again
      // (each run checks one winner per round) until they did, at most three times.
      let lostAttempts = 0;
      for (let run = 0; run < 3 && lostAttempts === 0; run++) {
        lostAttempts = (await runCasRace(storage, { kind: 'fs', root: storage.root }, 6, 200)).lostAttempts;
      }
      expect(lostAttempts).toBeGreaterThan(0); // the writers really raced
    } finally {
      await cleanup();
    }
  }, RACE_TEST_TIMEOUT_MS);
});
