import { MemoryStorage } from '../../src/engine/storage/memory.ts';
import { defineStorageContract } from './contract.ts';

defineStorageContract('memory', async () => ({ storage: new MemoryStorage() }));
