// Every key a store holds, sorted: what a test compares after writes.
import type { ZarrStore } from '../../src/engine/store.ts';

export async function storeKeys(store: ZarrStore): Promise<string[]> {
  const out: string[] = [];
  for await (const k of store.list()) out.push(k);
  return out.sort();
}
