import { makeFsStorage } from './backends.ts';
import { defineStorageContract } from './contract.ts';
import { defineModelTest } from './model.ts';

defineStorageContract('fs', async () => makeFsStorage(), { fileAndDirectorySameName: false });
defineModelTest('fs', async () => makeFsStorage(), { numRuns: 40, maxCommands: 30 });
