// Shared set-up for the conflict, rebase and fork tests: a small repository (groups /, /g;
// arrays /a and /g/b of 8 int32 in chunks of 4) and helpers that write through the session store.
import { ZarrArray } from '../../src/engine/array.ts';
import { ZarrGroup } from '../../src/engine/group.ts';
import type { ZarrStore } from '../../src/engine/store.ts';
import { Repository, Storage, type RepositoryOptions, type Session } from '../../src/txn/index.ts';

export const int32 = { shape: [8], chunkShape: [4], dataType: 'int32', fillValue: 0 } as never;

/** `options` are the repository's (a fake clock, say). */
export async function baseRepository(options: RepositoryOptions = {}): Promise<Repository> {
  const repo = await Repository.create(Storage.newInMemory(), {}, 2, {}, options);
  const s = await repo.writableSession('main');
  await ZarrGroup.create(s.store, '/');
  await ZarrGroup.create(s.store, '/g');
  await (await ZarrArray.create(s.store, '/a', int32)).set(undefined, 1);
  await (await ZarrArray.create(s.store, '/g/b', int32)).set(undefined, 1);
  await s.commit('base');
  return repo;
}

/** 1 KiB chunks of int32: above the default 512-byte inline threshold, so stored as chunk objects. */
export const LARGE_CHUNK = 256;

/** Writes chunk `index` of an int32 array with chunks of `elements` (default 4), every element `value`. */
export async function writeChunk(store: ZarrStore, path: string, index: number, value: number, elements = 4): Promise<void> {
  await store.set(`${path.slice(1)}/c/${index}`, new Uint8Array(new Int32Array(elements).fill(value).buffer));
}

export async function readArray(session: Session, path: string): Promise<number[]> {
  return Array.from((await (await ZarrArray.open(session.store, path)).get()).data as Int32Array);
}

export async function setAttribute(store: ZarrStore, path: string, value: string): Promise<void> {
  const key = path === '/' ? 'zarr.json' : `${path.slice(1)}/zarr.json`;
  const meta = JSON.parse(new TextDecoder().decode(await store.get(key))) as { attributes?: Record<string, unknown> };
  meta.attributes = { ...meta.attributes, who: value };
  await store.set(key, new TextEncoder().encode(JSON.stringify(meta)));
}

export async function attribute(session: Session, path: string): Promise<unknown> {
  const key = path === '/' ? 'zarr.json' : `${path.slice(1)}/zarr.json`;
  const bytes = await session.store.get(key);
  return bytes && (JSON.parse(new TextDecoder().decode(bytes)) as { attributes?: { who?: unknown } }).attributes?.who;
}

export async function deleteNode(store: ZarrStore, path: string): Promise<void> {
  await store.erase(path === '/' ? 'zarr.json' : `${path.slice(1)}/zarr.json`);
}

export const createGroup = (store: ZarrStore, path: string) => ZarrGroup.create(store, path);
export const createArray = (store: ZarrStore, path: string) => ZarrArray.create(store, path, int32);

/** Their session commits `theirs`; ours (opened before) applies `ours` and is left uncommitted. */
export async function race(repo: Repository, theirs: (s: Session) => Promise<unknown>, ours: (s: Session) => Promise<unknown>) {
  const their = await repo.writableSession('main');
  const our = await repo.writableSession('main');
  await theirs(their);
  const theirSnapshot = await their.commit('theirs');
  await ours(our);
  return { their, our, theirSnapshot };
}
