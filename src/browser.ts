/**
 * Floe's browser entry (issue 31, stage 1): the read path — repositories, sessions, plain Zarr
 * stores and arrays, the query DSL — over HTTP and memory storage.
 * @module floe/browser
 */
export { FloeError, isFloeError, ERROR_CODES, type ErrorCode } from './errors.ts';
export { Repository, Storage, Session, SessionStore } from './txn/index.ts';
export { MemoryStorage } from './engine/storage/memory.ts';
export { HttpStorage } from './engine/storage/http.ts';
export { ZarrArray } from './engine/array.ts';
export { ZarrGroup, openNode } from './engine/group.ts';
export { slice } from './engine/selection.ts';
export { openStore, openArray, openGroup, get } from './engine/api.ts';
export { StorageStore } from './engine/store.ts';
export { query } from './query/index.ts';
