// A chunk object larger than any encoding of its chunk is refused (LIMIT_EXCEEDED, encoded-bytes)
// on every way a chunk is read: a local file (read by Floe itself), each backend's `get` under the
// chain's bound (memory, SQLite, HTTP from its Content-Length), and an Icechunk manifest whose
// recorded length passes the bound (refused before anything is fetched). The HTTP server counts
// what it sent, so the test fails if the body is read whole before the refusal.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ZarrArray } from '../../src/engine/array.ts';
import { slice } from '../../src/engine/selection.ts';
import { FsStorage } from '../../src/engine/storage/fs.ts';
import { HttpStorage } from '../../src/engine/storage/http.ts';
import { MemoryStorage } from '../../src/engine/storage/memory.ts';
import { StorageStore } from '../../src/engine/store.ts';
import type { ObjectStorage } from '../../src/engine/storage/types.ts';
import { Repository, Storage } from '../../src/txn/index.ts';
import { refusal } from '../support/error-code.ts';
import { startStaticServer } from '../support/static-http-server.ts';
import { makeSqliteStorage } from '../storage/backends.ts';

const META = { shape: [8], chunkShape: [4], dataType: 'int32', fillValue: 0, codecs: [{ name: 'bytes', configuration: { endian: 'little' } }, { name: 'gzip', configuration: { level: 1 } }] } as never;
const JUNK = new Uint8Array(8 * 2 ** 20).fill(0x5a); // 8 MiB where a gzip of 16 bytes belongs

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

/** An array whose chunk c/0 is then replaced by JUNK in `storage`. */
async function poisoned(storage: ObjectStorage): Promise<StorageStore> {
  const store = new StorageStore(storage);
  const array = await ZarrArray.create(store, '/a', META);
  await array.set(undefined, Int32Array.from([1, 2, 3, 4, 5, 6, 7, 8]));
  await storage.put('a/c/0', JUNK);
  return store;
}

async function expectRefused(store: StorageStore): Promise<void> {
  const array = await ZarrArray.open(store, '/a');
  const err = await refusal(() => array.get(undefined, { decodePool: false }));
  expect(err.code).toBe('LIMIT_EXCEEDED');
  expect(err.details).toMatchObject({ kind: 'encoded-bytes', actual: JUNK.length });
  // The chunk next to it still reads.
  expect(Array.from((await array.get([slice(4, 8)], { decodePool: false })).data as Int32Array)).toEqual([5, 6, 7, 8]);
}

describe('a chunk object larger than any encoding of it', () => {
  it('is refused from a local file', async () => {
    const root = mkdtempSync(path.join(tmpdir(), 'floe-oversized-'));
    dirs.push(root);
    await expectRefused(await poisoned(new FsStorage({ root })));
  });

  it('is refused from memory and SQLite storage', async () => {
    await expectRefused(await poisoned(new MemoryStorage()));
    const sqlite = makeSqliteStorage();
    try {
      await expectRefused(await poisoned(sqlite.storage));
    } finally {
      await sqlite.storage.close();
      await sqlite.cleanup();
    }
  });

  it('is refused over HTTP from its Content-Length, without reading the body', async () => {
    const memory = new MemoryStorage();
    await poisoned(memory);
    const objects = new Map<string, Uint8Array>();
    for await (const info of memory.list('')) objects.set(info.key, (await memory.get(info.key))!.bytes);
    let sentJunk = 0;
    const server = await startStaticServer({
      objects,
      hook: (_req, res, key) => {
        if (key !== 'a/c/0') return false;
        res.writeHead(200, { 'content-length': String(JUNK.length) });
        const piece = JUNK.subarray(0, 64 * 1024);
        const pump = (): void => {
          while (!res.destroyed && sentJunk < JUNK.length && res.write(piece)) sentJunk += piece.length;
          if (sentJunk >= JUNK.length) res.end();
        };
        res.on('drain', pump);
        pump();
        return true;
      },
    });
    try {
      await expectRefused(new StorageStore(new HttpStorage({ url: server.url })));
      expect(sentJunk).toBeLessThan(JUNK.length);
    } finally {
      await server.stop();
    }
  });

  it('is refused from an Icechunk manifest length before anything is fetched', async () => {
    const repo = await Repository.create(Storage.newInMemory(), { virtualChunkContainers: { data: { urlPrefix: 'http://127.0.0.1:9/', store: { type: 'Http', field0: {} } } } } as never, 2, { 'http://127.0.0.1:9/': null });
    const session = await repo.writableSession('main');
    await ZarrArray.create(session.store, '/a', META);
    await session.store.setVirtualRef('a/c/0', 'http://127.0.0.1:9/blob', 0, JUNK.length, null, null, true);
    const array = await ZarrArray.open(session.store, '/a');
    const err = await refusal(() => array.get([slice(0, 4)], { decodePool: false }));
    expect([err.code, err.details]).toEqual(['LIMIT_EXCEEDED', expect.objectContaining({ kind: 'encoded-bytes', actual: JUNK.length })]);
  });
});
