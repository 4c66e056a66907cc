// A memory store that logs every read and write by kind and key, so tests can check which chunks
// an operation touched.
import { MemoryStorage } from '../../../src/engine/storage/memory.ts';
import { StorageStore } from '../../../src/engine/store.ts';

export interface StoreLog {
  /** Keys read, whole or by range (get, getRange, getInto, getPartialValues). */
  reads: string[];
  /** Keys written (set, setPartialValues). */
  writes: string[];
  /** Keys erased (erase, eraseValues). */
  erases: string[];
  clear(): void;
}

export function countingStore(): { store: StorageStore; log: StoreLog } {
  const store = new StorageStore(new MemoryStorage());
  const log: StoreLog = {
    reads: [], writes: [], erases: [],
    clear() {
      this.reads.length = 0;
      this.writes.length = 0;
      this.erases.length = 0;
    },
  };
  const base = {
    get: store.get.bind(store), getRange: store.getRange.bind(store),
    set: store.set.bind(store), eraseValues: store.eraseValues.bind(store),
  };
  // getPartialValues, setPartialValues and erase go through these, so each access is logged once.
  store.get = (k) => (log.reads.push(k), base.get(k));
  store.getRange = (k, r) => (log.reads.push(k), base.getRange(k, r));
  store.getInto = async (k, target) => {
    log.reads.push(k);
    const bytes = await base.get(k);
    if (bytes && bytes.length <= target.length) target.set(bytes);
    return bytes?.length;
  };
  store.set = (k, v) => (log.writes.push(k), base.set(k, v));
  store.eraseValues = (ks) => (log.erases.push(...ks), base.eraseValues(ks));
  return { store, log };
}

/** Sorted and deduplicated, for comparing sets of keys. */
export function keySet(keys: readonly string[]): string[] {
  return [...new Set(keys)].sort();
}
