// Plain-function entry points (zarrita's style) over the classes, for the README's examples.
import { shownValue } from '../format/arguments.ts';
import { isObjectStorage } from './storage/types.ts';
import { floeError, isFloeError } from '../errors.ts';
import type { NdArray } from '../format/zarr/ndarray.ts';
import { normalizePath } from '../format/zarr/paths.ts';
import { ZarrArray, type CfGetOptions, type CfSetOptions, type GetOptions, type OpenArrayOptions, type SetOptions, type WriteValue } from './array.ts';
import type { CfNdArray } from './cf-read.ts';
import type { CfWriteValue } from './cf-write.ts';
import { createAnyArray, ZarrGroup, type AnyArrayInput, type GroupCreateOptions, type NodeOpenOptions } from './group.ts';
import type { Selection } from './selection.ts';
import { FsStorage, type Durability } from './storage/fs.ts';
import { httpStorageStack } from './storage/http-stack.ts';
import { parseLocation } from './storage/location.ts';
import { MemoryStorage } from './storage/memory.ts';
import type { ObjectStorage } from './storage/types.ts';
import { StorageStore, type StorageStoreOptions, type ZarrStore } from './store.ts';
import { V2Array } from './v2-array.ts';

/** Options of {@link openStore}. */
export interface OpenStoreOptions {
  readOnly?: boolean;
  /**
   * For directories, what a write promises (see {@link Durability}): default `'atomic'` for plain
   * Zarr stores (a reader never sees a partly written chunk and a failed write leaves the old
   * one, but nothing is fsynced); `'fsync'` also survives an OS crash; `'none'` writes chunks in
   * place, like zarrita's FileSystemStore.
   */
  durability?: Durability;
  /** The older spelling: `true` is `durability: 'fsync'`, `false` is `'atomic'`. */
  durable?: boolean;
  /** Budget of decoded chunks kept for small reads; see {@link StorageStoreOptions.decodedChunkBytes}. */
  decodedChunkBytes?: number;
}

/**
 * A plain Zarr store: a directory path (or `file://` URL), `':memory:'`, an `http(s)://` URL
 * (read-only: the HTTP backend with retries and range batching), or any ObjectStorage.
 */
export function openStore(location: string | ObjectStorage, options: OpenStoreOptions = {}): StorageStore {
  if (typeof location !== 'string' && !isObjectStorage(location)) {
    throw floeError('INVALID_ARGUMENT', `openStore needs a directory path, an http(s):// URL, ':memory:' or an ObjectStorage, got ${shownValue(location)}`);
  }
  const parsed = typeof location === 'string' && location !== ':memory:' ? parseLocation(location) : undefined;
  if (parsed?.kind === 's3') throw floeError('INVALID_ARGUMENT', `openStore(${JSON.stringify(location)}): pass an S3Storage (new S3Storage({ bucket, prefix, ... })) for S3 stores`);
  const storage =
    typeof location !== 'string' ? location
    : parsed === undefined ? new MemoryStorage()
    : parsed.kind === 'http' ? httpStorageStack(parsed.url)
    : new FsStorage({
      root: parsed.path,
      durability: options.durability ?? (options.durable ? 'fsync' : 'atomic'),
      ...(options.durable !== undefined && { durable: options.durable }), // FsStorage refuses a contradiction
    });
  const readOnly = options.readOnly ?? parsed?.kind === 'http';
  return new StorageStore(storage, { readOnly, ...(options.decodedChunkBytes !== undefined ? { decodedChunkBytes: options.decodedChunkBytes } : {}) });
}

/**
 * Creates an array at `path` (see {@link ZarrArray.create}; with `zarrFormat: 2`, a Zarr v2 array,
 * see {@link V2Array.createAt}); `ALREADY_EXISTS` unless `overwrite`.
 */
export async function createArray(store: ZarrStore, path: string, input: AnyArrayInput, options?: OpenArrayOptions): Promise<ZarrArray> {
  return createAnyArray(store, path, input, options);
}

/**
 * Opens the array at `path`: Zarr v3 (zarr.json) or, when there is none, Zarr v2 (`.zarray`; a
 * {@link V2Array}); `zarrFormat` looks for one version only. `NOT_FOUND` when there is neither.
 */
export async function openArray(store: ZarrStore, path = '/', options: NodeOpenOptions = {}): Promise<ZarrArray> {
  if (options.zarrFormat === 2) return V2Array.openAt(store, path, options);
  try {
    return await ZarrArray.open(store, path, options);
  } catch (err) {
    if (options.zarrFormat === 3 || !isFloeError(err, 'NOT_FOUND')) throw err;
  }
  try {
    return await V2Array.openAt(store, path, options);
  } catch (err) {
    if (!isFloeError(err, 'NOT_FOUND')) throw err;
    throw floeError('NOT_FOUND', `no array at ${normalizePath(path)} (neither zarr.json nor .zarray)`, { where: err.where });
  }
}

/** Creates a group at `path`, or returns the existing group there (see {@link ZarrGroup.create}). */
export async function createGroup(store: ZarrStore, path = '/', options?: GroupCreateOptions): Promise<ZarrGroup> {
  return ZarrGroup.create(store, path, options);
}

/** Opens the group at `path`: v3 explicit or implicit, or v2 (see {@link ZarrGroup.open}). */
export async function openGroup(store: ZarrStore, path = '/', options?: NodeOpenOptions): Promise<ZarrGroup> {
  return ZarrGroup.open(store, path, options);
}

/** Reads a selection of an array (all of it by default) as an {@link NdArray}. */
export async function get(array: ZarrArray, selection: Selection | undefined, options: CfGetOptions): Promise<CfNdArray>;
export async function get(array: ZarrArray, selection?: Selection, options?: GetOptions): Promise<NdArray>;
export async function get(array: ZarrArray, selection?: Selection, options?: GetOptions | CfGetOptions): Promise<NdArray | CfNdArray> {
  return options?.decode === 'cf' ? array.get(selection, options) : array.get(selection, options as GetOptions | undefined);
}

/** Writes a value (a scalar, an NdArray or flat data) into a selection of an array. */
export async function set(array: ZarrArray, selection: Selection | undefined, value: CfWriteValue, options: CfSetOptions): Promise<void>;
export async function set(array: ZarrArray, selection: Selection | undefined, value: WriteValue, options?: SetOptions): Promise<void>;
export async function set(array: ZarrArray, selection: Selection | undefined, value: WriteValue | CfWriteValue, options?: SetOptions | CfSetOptions): Promise<void> {
  return options?.encode === 'cf' ? array.set(selection, value as CfWriteValue, options) : array.set(selection, value as WriteValue, options as SetOptions | undefined);
}
