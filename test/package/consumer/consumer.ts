// A strict TypeScript consumer of the installed package: it compiles (noEmit) against floe's
// declarations only, with every strictness flag a careful project turns on.
import {
  FloeError,
  isFloeError,
  query,
  Repository,
  slice,
  Storage,
  StorageStore,
  ZarrArray,
  MemoryStorage,
  type ArrayMetadataInput,
  type ErrorCode,
  type NdArray,
  type ObjectStorage,
  type Selection,
} from 'floe';
import { arrayCaseArb, type ArrayCase } from 'floe/testing';
import { distributedWrite, type DistributedWriteOptions, type TaskHandler } from 'floe/distributed';
import type { Arbitrary } from 'fast-check';
import * as browser from 'floe/browser';

const metadata: ArrayMetadataInput = {
  shape: [10, 20],
  chunkShape: [5, 5],
  dataType: 'int32',
  fillValue: 0,
};

export async function roundTrip(storage: Storage): Promise<NdArray> {
  const repo = await Repository.create(storage);
  const session = await repo.writableSession('main');
  const array = await ZarrArray.create(session.store, '/a', metadata);
  await array.set([null, null], new Int32Array(200).fill(7));
  await session.commit('seven');
  const selection: Selection = [slice(0, 5), 3];
  return array.get(selection);
}

export function codeOf(err: unknown): ErrorCode | undefined {
  if (isFloeError(err, 'NOT_FOUND', 'MISSING_DEPENDENCY')) return err.code;
  return err instanceof FloeError ? err.code : undefined;
}

export const plain = new StorageStore(new MemoryStorage());
export const local: Storage = Storage.newLocalFilesystem('/tmp/never-used');
export const backend: ObjectStorage = new MemoryStorage();
export const cases: Arbitrary<ArrayCase> = arrayCaseArb();
export const q: typeof query = query;

// floe/distributed's declarations compile without bullmq or ioredis installed.
export const handler: TaskHandler<{ chunk: number }> = async (task, fork, { signal }) => {
  const array = await ZarrArray.open(fork.store, '/a', { signal });
  await array.set([slice(task.chunk, task.chunk + 1)], 1, { signal });
};
// floe/browser's declarations: the read path over HTTP and memory storage.
export async function browserLog(url: string): Promise<string[]> {
  const repo: browser.Repository = await browser.Repository.open(url);
  const ids: string[] = [];
  for await (const snapshot of repo.ancestry({ branch: 'main' })) ids.push(snapshot.id);
  return ids;
}
export function distributed(repo: Repository, options: DistributedWriteOptions<{ chunk: number }>): Promise<string> {
  return distributedWrite(repo, options).then((r) => r.snapshotId);
}
