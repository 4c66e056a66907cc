// The filesystem backend in the browser build (replaces fs.ts there): a page has no local
// directory, so constructing one refuses with UNSUPPORTED (reason 'browser-build').
import type { FileLockOptions } from './fs-lock.ts';
import type { Clock } from './clock.ts';
import { notInBrowser } from './node-only.ts';

export type Durability = 'none' | 'atomic' | 'fsync';

/** Options of FsStorage (fs.ts). */
export interface FsStorageOptions {
  root: string;
  durability?: Durability;
  durable?: boolean;
  lock?: FileLockOptions;
  clock?: Clock;
}

export class FsStorage {
  constructor(options: FsStorageOptions) {
    throw notInBrowser(`a local directory (${JSON.stringify(String(options.root))})`);
  }
}
