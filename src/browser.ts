/**
 * Floe's browser entry (issue 31; `floe/browser`, built by scripts/build-browser.mjs): the read
 * path — repositories, sessions, plain Zarr stores and arrays, the query DSL — over HTTP and
 * memory storage, large reads decoded in Web Workers.
 * @module floe/browser
 */
import { setDecodeWorkerUrl } from './engine/decode-worker-url.ts';

export { FloeError, isFloeError, ERROR_CODES, type ErrorCode } from './errors.ts';
export { Repository, Storage, Session, SessionStore } from './txn/index.ts';
export { MemoryStorage } from './engine/storage/memory.ts';
export { HttpStorage } from './engine/storage/http.ts';
export { ZarrArray } from './engine/array.ts';
export { ZarrGroup, openNode } from './engine/group.ts';
export { slice } from './engine/selection.ts';
export { openStore, openArray, openGroup, get } from './engine/api.ts';
export { StorageStore } from './engine/store.ts';
export { query, ReadCaches } from './query/index.ts';

// The build puts this module in dist/browser/floe.js and the decode worker beside it.
setDecodeWorkerUrl(new URL('./decode-worker.js', import.meta.url));
