// Floe's repositories behind the RepositoryHandle contract: sessions from src/txn, arrays written
// and read through Floe's own ZarrArray (so fill-value chunk elision and chunk keys are Floe's).
import { ZarrArray } from '../../engine/array.ts';
import { ZarrGroup } from '../../engine/group.ts';
import { slice } from '../../engine/selection.ts';
import { isFloeError } from '../../errors.ts';
import type { ObjectStorage } from '../../engine/storage/types.ts';
import { Repository, Storage, type Session } from '../../txn/index.ts';
import { HISTORY_ARRAY } from '../arbitraries/repository-history.ts';
import type { ErrorClass, ReadSource, TreeListing } from '../model/repository-model.ts';
import { documentWithAttribute, readTreeListing, withAttribute } from './tree-listing.ts';
import type { RepositoryAdapter, RepositoryHandle } from './types.ts';

/** Options of {@link floeRepositoryAdapter}. */
export interface FloeRepositoryOptions {
  /** Chunks at or below this many bytes are stored inline (Floe's default 512). */
  readonly inlineChunkThresholdBytes?: number;
  /** Storage for each new repository; default in memory. */
  readonly storage?: () => ObjectStorage;
}

const rel = (path: string): string => path.replace(/^\//, '');

class FloeRepositoryHandle implements RepositoryHandle {
  private readonly sessions = new Map<number, Session>();
  constructor(private readonly repo: Repository) {}

  private session(slot: number): Session {
    const s = this.sessions.get(slot);
    if (!s) throw new Error(`session slot ${slot} was never opened`);
    return s;
  }
  async openSession(slot: number, branch: string): Promise<void> {
    this.sessions.set(slot, await this.repo.writableSession(branch));
  }
  async createGroup(slot: number, path: string): Promise<void> {
    await ZarrGroup.create(this.session(slot).store, path);
  }
  async createArray(slot: number, path: string): Promise<void> {
    await ZarrArray.create(this.session(slot).store, path, {
      shape: [HISTORY_ARRAY.chunks * HISTORY_ARRAY.chunkLength], chunkShape: [HISTORY_ARRAY.chunkLength], dataType: 'int32', fillValue: 0,
      codecs: [{ name: 'bytes', configuration: { endian: 'little' } }],
    });
  }
  async deleteNode(slot: number, path: string): Promise<void> {
    await this.session(slot).store.erasePrefix(`${rel(path)}/`);
  }
  async setAttribute(slot: number, path: string, value: number): Promise<void> {
    const store = this.session(slot).store;
    const key = `${rel(path)}/zarr.json`;
    await store.set(key, documentWithAttribute((await store.get(key))!, value));
  }
  async writeChunk(slot: number, path: string, chunk: number, value: number): Promise<void> {
    const array = await ZarrArray.open(this.session(slot).store, path);
    await array.set([slice(chunk * HISTORY_ARRAY.chunkLength, (chunk + 1) * HISTORY_ARRAY.chunkLength)], value);
  }
  async eraseChunk(slot: number, path: string, chunk: number): Promise<void> {
    await this.session(slot).store.erase(`${rel(path)}/c/${chunk}`);
  }
  commit(slot: number, message: string): Promise<string> {
    return this.session(slot).commit(message);
  }
  rebase(slot: number): Promise<void> {
    return this.session(slot).rebase();
  }
  async moveNode(branch: string, from: string, to: string, message: string): Promise<string> {
    const session = await this.repo.writableSession(branch);
    await session.moveNode(from, to);
    return session.commit(message);
  }
  lookupBranch(branch: string): Promise<string> {
    return this.repo.lookupBranch(branch);
  }
  createBranch(name: string, snapshotId: string): Promise<void> {
    return this.repo.createBranch(name, snapshotId);
  }
  createTag(name: string, snapshotId: string): Promise<void> {
    return this.repo.createTag(name, snapshotId);
  }
  resetBranch(branch: string, snapshotId: string): Promise<void> {
    return this.repo.resetBranch(branch, snapshotId);
  }
  async readTree(source: ReadSource): Promise<TreeListing> {
    const session = 'slot' in source ? this.session(source.slot) : await this.repo.readonlySession(source);
    const store = session.store;
    const listing = await readTreeListing({
      list: async () => {
        const keys: string[] = [];
        for await (const k of store.list()) keys.push(k);
        return keys;
      },
      get: (key) => store.get(key),
    });
    // Arrays are read again through Floe's own engine: the raw-key listing only names them.
    for (const [path, value] of Object.entries(listing)) {
      const [node, attr] = typeof value === 'object' && 'attr' in value ? [value.node, value.attr] : [value, undefined];
      if (node !== 'group') listing[path] = withAttribute(Array.from((await (await ZarrArray.open(store, path)).get()).data as Int32Array), attr);
    }
    return listing;
  }
  classifyError(err: unknown): ErrorClass {
    if (isFloeError(err, 'CONFLICT')) return 'conflict';
    if (isFloeError(err, 'INVALID_ARGUMENT') && err.details.reason === 'no-changes') return 'no-changes';
    if (isFloeError(err, 'ALREADY_EXISTS')) return 'already-exists';
    if (isFloeError(err, 'NOT_FOUND')) return 'not-found';
    return 'other';
  }
  async close(): Promise<void> {}
}

/** Floe repositories, each starting with an empty root group committed on main. */
export function floeRepositoryAdapter(options: FloeRepositoryOptions = {}): RepositoryAdapter {
  return {
    name: `floe${options.inlineChunkThresholdBytes === undefined ? '' : ` (inline <= ${options.inlineChunkThresholdBytes} B)`}`,
    async createRepository() {
      const storage = options.storage ? Storage.fromObjectStorage(options.storage()) : Storage.newInMemory();
      const repo = await Repository.create(storage, options.inlineChunkThresholdBytes === undefined ? {} : { inlineChunkThresholdBytes: options.inlineChunkThresholdBytes });
      const session = await repo.writableSession('main');
      await ZarrGroup.create(session.store, '/');
      await session.commit('root group');
      return new FloeRepositoryHandle(repo);
    },
  };
}
