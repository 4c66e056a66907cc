import { MemoryStorage } from '../../src/engine/storage/memory.ts';
import { defineStorageContract } from './contract.ts';
import { defineModelTest } from './model.ts';

defineStorageContract('memory', async () => ({ storage: new MemoryStorage() }));
defineModelTest('memory', async () => ({ storage: new MemoryStorage() }), { numRuns: 200, maxCommands: 40 });
