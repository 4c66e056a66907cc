// Plain-function entry points (zarrita's style) over the classes, for the README's examples.
import type { ArrayMetadataInput } from '../format/zarr/metadata.ts';
import type { NdArray } from '../format/zarr/ndarray.ts';
import { ZarrArray, type GetOptions, type OpenArrayOptions, type SetOptions, type WriteValue } from './array.ts';
import { ZarrGroup, type CreateGroupOptions } from './group.ts';
import type { Selection } from './selection.ts';
import { FsStorage } from './storage/fs.ts';
import { MemoryStorage } from './storage/memory.ts';
import type { ObjectStorage } from './storage/types.ts';
import { StorageStore, type AbortOptions, type ZarrStore } from './store.ts';

/** Options of {@link openStore}. */
export interface OpenStoreOptions {
  readOnly?: boolean;
  /** For directories: fsync every write (default false for plain Zarr stores: they are untracked). */
  durable?: boolean;
}

/** A plain Zarr store: a directory path, `':memory:'`, or any ObjectStorage. */
export function openStore(location: string | ObjectStorage, options: OpenStoreOptions = {}): StorageStore {
  const storage =
    typeof location !== 'string' ? location
    : location === ':memory:' ? new MemoryStorage()
    : new FsStorage({ root: location, durable: options.durable ?? false });
  return new StorageStore(storage, { readOnly: options.readOnly ?? false });
}

/** Creates an array at `path` (see {@link ZarrArray.create}); `ALREADY_EXISTS` unless `overwrite`. */
export async function createArray(store: ZarrStore, path: string, input: ArrayMetadataInput & { overwrite?: boolean }, options?: OpenArrayOptions): Promise<ZarrArray> {
  return ZarrArray.create(store, path, input, options);
}

/** Opens the array at `path` (see {@link ZarrArray.open}); `NOT_FOUND` when there is none. */
export async function openArray(store: ZarrStore, path = '/', options?: OpenArrayOptions): Promise<ZarrArray> {
  return ZarrArray.open(store, path, options);
}

/** Creates a group at `path`, or returns the existing group there (see {@link ZarrGroup.create}). */
export async function createGroup(store: ZarrStore, path = '/', options?: CreateGroupOptions): Promise<ZarrGroup> {
  return ZarrGroup.create(store, path, options);
}

/** Opens the group at `path`, explicit or implicit (see {@link ZarrGroup.open}). */
export async function openGroup(store: ZarrStore, path = '/', options?: AbortOptions): Promise<ZarrGroup> {
  return ZarrGroup.open(store, path, options);
}

/** Reads a selection of an array (all of it by default) as an {@link NdArray}. */
export async function get(array: ZarrArray, selection?: Selection, options?: GetOptions): Promise<NdArray> {
  return array.get(selection, options);
}

/** Writes a value (a scalar, an NdArray or flat data) into a selection of an array. */
export async function set(array: ZarrArray, selection: Selection | undefined, value: WriteValue, options?: SetOptions): Promise<void> {
  return array.set(selection, value, options);
}
