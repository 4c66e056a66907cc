// Plain-function entry points (zarrita's style) over the classes, for the README's examples.
import type { ArrayMetadataInput, Attributes } from '../format/zarr/metadata.ts';
import type { NdArray } from '../format/zarr/ndarray.ts';
import { ZarrArray, type ArrayIoOptions, type GetOptions, type WriteValue } from './array.ts';
import { ZarrGroup } from './group.ts';
import type { Selection } from './selection.ts';
import { FsStorage } from './storage/fs.ts';
import { MemoryStorage } from './storage/memory.ts';
import type { ObjectStorage } from './storage/types.ts';
import { StorageStore, type ZarrStore } from './store.ts';

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

export async function createArray(store: ZarrStore, path: string, input: ArrayMetadataInput & { overwrite?: boolean }, options?: ArrayIoOptions): Promise<ZarrArray> {
  return ZarrArray.create(store, path, input, options);
}

export async function openArray(store: ZarrStore, path = '/', options?: ArrayIoOptions): Promise<ZarrArray> {
  return ZarrArray.open(store, path, options);
}

export async function createGroup(store: ZarrStore, path = '/', options?: { attributes?: Attributes; overwrite?: boolean }): Promise<ZarrGroup> {
  return ZarrGroup.create(store, path, options);
}

export async function openGroup(store: ZarrStore, path = '/'): Promise<ZarrGroup> {
  return ZarrGroup.open(store, path);
}

export async function get(array: ZarrArray, selection?: Selection, options?: GetOptions): Promise<NdArray> {
  return array.get(selection, options);
}

export async function set(array: ZarrArray, selection: Selection | undefined, value: WriteValue, options?: ArrayIoOptions): Promise<void> {
  return array.set(selection, value, options);
}
