import { makeFsStorage } from './backends.ts';
import { defineStorageContract } from './contract.ts';

defineStorageContract('fs', async () => makeFsStorage(), { fileAndDirectorySameName: false });
