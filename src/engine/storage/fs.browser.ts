// The filesystem backend in the browser build (replaces fs.ts there): a page has no local
// directory, so constructing one refuses with UNSUPPORTED (reason 'browser-build'). The option
// types come from fs.ts as types only, which the build erases.
import type { FsStorageOptions } from './fs.ts';
import { notInBrowser } from './node-only.ts';

export type { Durability, FsStorageOptions } from './fs.ts';

export class FsStorage {
  constructor(options: FsStorageOptions) {
    throw notInBrowser(`a local directory (${JSON.stringify(String(options.root))})`);
  }
}
