// A long-lived child process serving the reference Icechunk (`@earthmover/icechunk`, WASM build) to
// the icechunk adapter: one JSON request per stdin line, one JSON reply per stdout line. It runs
// out of the caller's process because the WASM runtime keeps a process alive; the parent ends it.
// Repositories live in Floe MemoryStorage through Storage.newCustom (icechunk-storage.ts).
import { createInterface } from 'node:readline';
import { Repository, Storage, type Session } from '@earthmover/icechunk';
import { MemoryStorage } from '../../engine/storage/memory.ts';
import { customBackend } from './icechunk-storage.ts';
import { documentWithAttribute, historyArrayDocument, historyChunkBytes, readTreeListing } from './tree-listing.ts';

interface Request { id: number; method: string; args: unknown[] }

/** Per repository: its sessions by slot and the branch each slot's session is on. */
const repos = new Map<number, { repo: Repository; sessions: Map<number, Session>; branches: Map<number, string> }>();
let nextRepo = 1;
const GROUP = Buffer.from(JSON.stringify({ zarr_format: 3, node_type: 'group', attributes: {} }));
const rel = (p: string): string => p.replace(/^\//, '');

function sessionOf(repoId: number, slot: number): Session {
  const s = repos.get(repoId)?.sessions.get(slot);
  if (!s) throw new Error(`no session ${slot} in repository ${repoId}`);
  return s;
}

async function handle(method: string, args: unknown[]): Promise<unknown> {
  if (method === 'createRepository') {
    // The typings omit the leading `null` every callback really receives (see icechunk-storage.ts).
    const backend = customBackend(new MemoryStorage()) as unknown as Parameters<typeof Storage.newCustom>[0];
    const repo = await Repository.create(Storage.newCustom(backend));
    const session = await repo.writableSession('main');
    await session.store.set('zarr.json', GROUP);
    await session.commit('root group');
    repos.set(nextRepo, { repo, sessions: new Map(), branches: new Map() });
    return nextRepo++;
  }
  const [repoId, ...rest] = args as [number, ...unknown[]];
  const entry = repos.get(repoId);
  if (!entry) throw new Error(`no repository ${repoId}`);
  const { repo, sessions, branches } = entry;
  const [a, b, c, d] = rest as [never, never, never, never];
  switch (method) {
    case 'openSession':
      sessions.set(a, await repo.writableSession(b));
      branches.set(a, b);
      return null;
    case 'createGroup': return sessionOf(repoId, a).store.set(`${rel(b)}/zarr.json`, GROUP);
    case 'createArray': return sessionOf(repoId, a).store.set(`${rel(b)}/zarr.json`, Buffer.from(historyArrayDocument()));
    case 'deleteNode': return sessionOf(repoId, a).store.deleteDir(rel(b));
    case 'setAttribute': {
      const store = sessionOf(repoId, a).store;
      const doc = await store.get(`${rel(b)}/zarr.json`);
      if (!doc) throw new Error(`no node at ${b as string}`);
      return store.set(`${rel(b)}/zarr.json`, Buffer.from(documentWithAttribute(doc, c)));
    }
    case 'writeChunk': return sessionOf(repoId, a).store.set(`${rel(b)}/c/${c as number}`, Buffer.from(historyChunkBytes(d)));
    case 'eraseChunk': return sessionOf(repoId, a).store.delete(`${rel(b)}/c/${c as number}`);
    case 'commit': {
      const id = await sessionOf(repoId, a).commit(b);
      // The reference's session is spent after a commit (its `branch` reads null): continue on
      // the new tip of the same branch, like Floe does.
      sessions.set(a, await repo.writableSession(branches.get(a)!));
      return id;
    }
    // The reference's `rebase()` takes no solver: it fails on any conflict, as a ConflictDetector.
    case 'rebase': return sessionOf(repoId, a).rebase();
    case 'moveNode': {
      const session = await repo.rearrangeSession(a);
      await session.moveNode(b, c);
      return session.commit(d);
    }
    case 'lookupBranch': return repo.lookupBranch(a);
    case 'createBranch': return repo.createBranch(a, b);
    case 'createTag': return repo.createTag(a, b);
    case 'resetBranch': return repo.resetBranch(a, b);
    case 'readTree': {
      const source = a as { slot: number } | { branch: string } | { tag: string };
      const session = 'slot' in source ? sessionOf(repoId, source.slot) : await repo.readonlySession(source);
      return readTreeListing({ list: () => session.store.list(), get: async (k) => (await session.store.get(k)) ?? undefined });
    }
    case 'closeRepository': repos.delete(repoId); return null;
    default: throw new Error(`unknown method ${method}`);
  }
}

const lines = createInterface({ input: process.stdin });
// Requests are handled one at a time, in order, as the adapter sends them.
let queue = Promise.resolve();
lines.on('line', (line) => {
  const req = JSON.parse(line) as Request;
  queue = queue.then(async () => {
    try {
      const value = await handle(req.method, req.args);
      process.stdout.write(JSON.stringify({ id: req.id, ok: true, value: value ?? null }) + '\n');
    } catch (err) {
      process.stdout.write(JSON.stringify({ id: req.id, ok: false, error: String((err as Error)?.message ?? err) }) + '\n');
    }
  });
});
lines.on('close', () => void queue.then(() => process.exit(0)));
