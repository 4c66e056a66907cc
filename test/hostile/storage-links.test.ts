// Issue 27, part 1: no path from a key to a file leaves the fs root through a linked directory,
// and no destructive operation trusts a check made before it acts. (a) reads of arrays whose
// chunk directory is a link (sessions, plain stores, decode workers) are INVALID_KEY; (b) GC on a
// storage that already walked a real directory, which is then replaced by a link to an outside
// copy holding an old id-named bait file, refuses with INVALID_KEY naming the link, and the bait
// survives; (c) a link swapped in between GC's listing and its deletes touches nothing outside;
// at the level below (walk, swap, act), the descriptor walk touches nothing outside and the lstat
// fallback shows exactly the residual race docs/security.md states; (d) every public operation
// that touches files, for every link placement, before opening and after a warm-up: typed
// refusals or clean success, the outside folder unchanged. Every directory made here is removed.
import { createHash, randomBytes } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/engine/api.ts';
import { ZarrArray } from '../../src/engine/array.ts';
import { readFileIntoViews, readLocalFile } from '../../src/engine/local-file.ts';
import { inside, useDescriptorPaths, walkTo } from '../../src/engine/storage/fs-dirs.ts';
import { FsStorage } from '../../src/engine/storage/fs.ts';
import { isFloeError, type ErrorCode } from '../../src/errors.ts';
import { encodeBase32 } from '../../src/format/icechunk/ids.ts';
import { overwrittenRepoKey } from '../../src/format/icechunk/keys.ts';
import { Repository, Storage } from '../../src/txn/index.ts';
import { testPool, warmPool } from '../support/decode-pool.ts';

const scratch = mkdtempSync(path.join(tmpdir(), 'floe-links-'));
const pool = testPool(4 << 20);
afterAll(async () => {
  await pool.close();
  rmSync(scratch, { recursive: true, force: true });
});

const MARKER = 'BAIT-OUTSIDE-THE-ROOT';
const LONG_AGO = new Date('2000-01-01T00:00:00Z');
const CUTOFF = () => new Date(Date.now() - 2 * 3600_000);
const PREFIXES = ['chunks', 'manifests', 'snapshots', 'transactions', 'overwritten'] as const;
let dirs = 0;
const freshDir = (label: string) => mkdtempSync(path.join(scratch, `${label}-${dirs++}-`));

/** Every file under `dir` with its content hash and mtime: what must not change. */
function snapshot(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const name of readdirSync(dir, { recursive: true }) as string[]) {
    const full = path.join(dir, name);
    const stats = statSync(full);
    out.set(name, stats.isDirectory() ? 'dir' : `${createHash('sha256').update(readFileSync(full)).digest('hex')}:${stats.mtimeMs}`);
  }
  return out;
}

/** A name GC would take for one of its objects under `prefix`. */
const idName = (prefix: string) => (prefix === 'overwritten' ? overwrittenRepoKey(LONG_AGO.getTime()).split('/')[1]! : encodeBase32(randomBytes(12)));

/**
 * Replaces `root/dir` by a link to an outside copy of it holding an old, id-named bait file, as
 * an attacker with write access to the root would; returns the copy and the bait's path.
 */
function replaceByLink(root: string, dir: string, outsideBase: string): { outside: string; bait: string } {
  const outside = path.join(outsideBase, `outside-${dir.replace(/\//g, '-')}`);
  cpSync(path.join(root, dir), outside, { recursive: true, preserveTimestamps: true });
  const bait = path.join(outside, idName(dir));
  writeFileSync(bait, `${MARKER} ${dir}`);
  utimesSync(bait, LONG_AGO, LONG_AGO);
  rmSync(path.join(root, dir), { recursive: true });
  symlinkSync(outside, path.join(root, dir));
  return { outside, bait };
}

async function refusal(work: Promise<unknown>): Promise<unknown> {
  return work.then(() => 'succeeded', (err: unknown) => err);
}

function expectLinkRefused(err: unknown, link: string): void {
  if (!isFloeError(err, 'INVALID_KEY')) throw new Error(`expected INVALID_KEY naming ${link}, got ${String(err)}`);
  expect(err.message).toContain(`${JSON.stringify(link)}, a symbolic link`);
}

// Reads of 8 MiB and more go to running decode workers (MIN_POOLED_READ_BYTES): 2 MiB chunks.
const big = { shape: [2048, 1024], chunkShape: [512, 1024], dataType: 'float32', fillValue: 0 } as const;
const bigZstd = { ...big, codecs: [{ name: 'bytes', configuration: { endian: 'little' } }, { name: 'zstd', configuration: { level: 1, checksum: false } }] } as never;
const bigValues = Float32Array.from({ length: 2048 * 1024 }, (_, i) => (i % 1000) + 0.5);
const small = { shape: [64, 64], chunkShape: [16, 64], dataType: 'float32', fillValue: 0 } as const;

/** A repository (one object per chunk) with array /a committed, and a second commit. */
async function committedRepo(root: string, storage = new FsStorage({ root }), meta: object = small) {
  const repo = await Repository.create(Storage.fromObjectStorage(storage), { inlineChunkThresholdBytes: 0 }, 2, {}, { chunkPacking: false });
  const session = await repo.writableSession('main');
  await (await ZarrArray.create(session.store, '/a', meta as never)).set(undefined, 1.5);
  await session.commit('values');
  const again = await repo.writableSession('main');
  await (await ZarrArray.open(again.store, '/a')).set([0, 0], 7);
  await again.commit('one more');
  return { repo, storage };
}

describe('reads through a linked directory are refused (a)', () => {
  it('a session of a repository whose chunks/ is a link, opened afresh: ZarrArray.get is INVALID_KEY, in the thread and on workers', async () => {
    const base = freshDir('session-read');
    const root = path.join(base, 'repo');
    await committedRepo(root, undefined, big);
    const { outside } = replaceByLink(root, 'chunks', base);
    const before = snapshot(outside);
    const repo = await Repository.open(Storage.fromObjectStorage(new FsStorage({ root })));
    const array = await ZarrArray.open((await repo.readonlySession({ branch: 'main' })).store, '/a');
    expectLinkRefused(await refusal(array.get(undefined, { decodePool: false })), 'chunks');
    await warmPool(pool);
    const sent = pool.chunksSent;
    expectLinkRefused(await refusal(array.get(undefined, { decodePool: pool })), 'chunks');
    expect(pool.chunksSent).toBeGreaterThan(sent); // the workers' own file reads refused it
    expect(snapshot(outside)).toEqual(before);
  });

  for (const [layout, meta] of [['raw', big], ['zstd', bigZstd]] as const) {
    it(`a plain store whose a/c/ is a link (${layout}): ZarrArray.get is INVALID_KEY, in the thread and on workers`, async () => {
      const base = freshDir(`plain-read-${layout}`);
      const root = path.join(base, 'store');
      await (await ZarrArray.create(openStore(root), '/a', meta)).set(undefined, bigValues);
      replaceByLink(root, 'a/c', base);
      const array = await ZarrArray.open(openStore(root), '/a');
      expectLinkRefused(await refusal(array.get(undefined, { decodePool: false })), 'a/c');
      await warmPool(pool);
      const sent = pool.chunksSent;
      expectLinkRefused(await refusal(array.get(undefined, { decodePool: pool })), 'a/c');
      expect(pool.chunksSent).toBeGreaterThan(sent);
      // The store's own get agrees.
      expectLinkRefused(await refusal(openStore(root).get('a/c/0/0')), 'a/c');
    });
  }

  it('the chunk-file readers refuse a span whose directory is a link, at any depth', () => {
    const base = freshDir('span');
    const root = path.join(base, 'root');
    mkdirSync(path.join(root, 'x'), { recursive: true });
    mkdirSync(path.join(base, 'elsewhere', 'deep'), { recursive: true });
    writeFileSync(path.join(base, 'elsewhere', 'deep', 'f'), MARKER);
    symlinkSync(path.join(base, 'elsewhere'), path.join(root, 'x', 'l'));
    for (const key of ['x/l/deep/f', 'x/l/f']) {
      expectLinkRefused(refusalSync(() => readLocalFile({ root, key }, 1 << 20)), 'x/l');
      expectLinkRefused(refusalSync(() => readFileIntoViews({ root, key }, MARKER.length, 0, [new Uint8Array(MARKER.length)])), 'x/l');
    }
  });
});

function refusalSync(work: () => unknown): unknown {
  try {
    work();
    return 'succeeded';
  } catch (err) {
    return err;
  }
}

describe('GC on a storage that verified the real directory before it became a link (b)', () => {
  for (const prefix of PREFIXES) {
    it(`${prefix}/: GC refuses with INVALID_KEY naming the link, and the outside bait survives`, async () => {
      const base = freshDir(`gc-swap-${prefix}`);
      const root = path.join(base, 'repo');
      const { repo, storage } = await committedRepo(root);
      // Walk the real directory through this storage first: list it and read an object in it.
      const listed = [];
      for await (const o of storage.list(`${prefix}/`)) listed.push(o.key);
      expect(listed.length).toBeGreaterThan(0);
      expect(await storage.get(listed[0]!)).not.toBeNull();
      const { outside, bait } = replaceByLink(root, prefix, base);
      const before = snapshot(outside);
      expectLinkRefused(await refusal(repo.garbageCollect(CUTOFF())), prefix);
      expect(existsSync(bait)).toBe(true);
      expect(snapshot(outside)).toEqual(before);
    });
  }
});

describe('a link swapped in between GC listing an object and deleting it (c)', () => {
  /** An FsStorage whose first delete runs `hook` first: a deterministic point between GC's listing and its deletes. */
  class HookedFs extends FsStorage {
    hook: (() => void) | undefined;
    override async delete(keys: readonly string[], options?: { signal?: AbortSignal }) {
      const hook = this.hook;
      this.hook = undefined;
      hook?.();
      return super.delete(keys, options);
    }
  }

  it('GC refuses with INVALID_KEY naming chunks, and neither the outside file of that name nor the real chunk is deleted', async () => {
    const base = freshDir('gc-hook');
    const root = path.join(base, 'repo');
    const storage = new HookedFs({ root });
    const { repo } = await committedRepo(root, storage);
    const garbage = encodeBase32(randomBytes(12)); // an old chunk no snapshot references
    writeFileSync(path.join(root, 'chunks', garbage), 'garbage');
    utimesSync(path.join(root, 'chunks', garbage), LONG_AGO, LONG_AGO);
    const outside = path.join(base, 'outside');
    const aside = path.join(base, 'aside');
    let atSwap: Map<string, string> | undefined;
    storage.hook = () => {
      cpSync(path.join(root, 'chunks'), outside, { recursive: true, preserveTimestamps: true }); // holds a file named like the garbage chunk
      renameSync(path.join(root, 'chunks'), aside);
      symlinkSync(outside, path.join(root, 'chunks'));
      atSwap = snapshot(outside);
    };
    expectLinkRefused(await refusal(repo.garbageCollect(CUTOFF())), 'chunks');
    expect(atSwap).toBeDefined(); // the hook ran: GC had listed the garbage and was deleting
    expect(existsSync(path.join(outside, garbage))).toBe(true);
    expect(existsSync(path.join(aside, garbage))).toBe(true);
    expect(snapshot(outside)).toEqual(atSwap);
  });

  for (const mode of ['descriptor walk (Linux)', 'lstat fallback'] as const) {
    it(`below the storage, a swap between the walk and the unlink: ${mode}`, () => {
      const base = freshDir('walk-swap');
      const root = path.join(base, 'root');
      mkdirSync(path.join(root, 'chunks'), { recursive: true });
      writeFileSync(path.join(root, 'chunks', 'X'), 'ours');
      mkdirSync(path.join(base, 'outside'));
      writeFileSync(path.join(base, 'outside', 'X'), MARKER);
      const previous = useDescriptorPaths(mode === 'descriptor walk (Linux)');
      try {
        const walk = walkTo(root, 'chunks', 'chunks/X', false)!;
        renameSync(path.join(root, 'chunks'), path.join(base, 'aside'));
        symlinkSync(path.join(base, 'outside'), path.join(root, 'chunks'));
        try {
          rmSync(inside(walk.dir, 'X'));
        } finally {
          walk.close();
        }
      } finally {
        useDescriptorPaths(previous);
      }
      if (mode === 'descriptor walk (Linux)' && process.platform === 'linux') {
        // The unlink acted in the directory the walk opened (moved aside), never through the link.
        expect(existsSync(path.join(base, 'outside', 'X'))).toBe(true);
        expect(existsSync(path.join(base, 'aside', 'X'))).toBe(false);
      } else {
        // The residual race docs/security.md states: without /proc/self/fd the act uses the path
        // checked a moment before, so a swap in between reaches the outside file.
        expect(existsSync(path.join(base, 'outside', 'X'))).toBe(false);
        expect(existsSync(path.join(base, 'aside', 'X'))).toBe(true);
      }
    });
  }
});

/** The public operations that touch files, as a repository user calls them. */
const OPERATIONS: Record<string, (repo: Repository, storage: FsStorage) => Promise<unknown>> = {
  read: async (repo) => (await ZarrArray.open((await repo.readonlySession({ branch: 'main' })).store, '/a')).get(undefined, { decodePool: false }),
  history: async (repo) => {
    for await (const s of repo.ancestry({ branch: 'main' })) void s;
  },
  write: async (repo) => {
    const session = await repo.writableSession('main');
    await (await ZarrArray.open(session.store, '/a')).set([1, 1], 3);
    await session.commit('probe');
  },
  list: async (_repo, storage) => {
    for (const prefix of PREFIXES) for await (const o of storage.list(`${prefix}/`)) void o;
  },
  listDir: async (_repo, storage) => Promise.all(PREFIXES.map((p) => storage.listDir(`${p}/`))),
  delete: async (_repo, storage) => storage.delete(PREFIXES.map((p) => `${p}/${idName(p)}`)),
  verify: (repo) => repo.verify(),
  opsLog: async (repo) => {
    for await (const item of repo.opsLog()) void item;
  },
  expire: (repo) => repo.expireSnapshots(new Date()),
  gc: (repo) => repo.garbageCollect(CUTOFF()),
};

describe('every public operation against every link placement (d)', () => {
  const table: Record<string, Record<string, string>> = {};
  afterAll(() => {
    const counts: Record<string, number> = {};
    for (const row of Object.values(table)) for (const outcome of Object.values(row)) counts[outcome] = (counts[outcome] ?? 0) + 1;
    console.log('link probes (operation x placement):', JSON.stringify({ cells: Object.values(table).reduce((n, r) => n + Object.keys(r).length, 0), counts, table }));
  });

  for (const timing of ['opened after the swap', 'swapped after a warm-up'] as const) {
    for (const prefix of PREFIXES) {
      it(`${prefix}/ ${timing}: every operation succeeds cleanly or is refused with a typed error, nothing outside changes`, async () => {
        const base = freshDir(`matrix-${prefix}`);
        const root = path.join(base, 'repo');
        let { repo, storage } = await committedRepo(root);
        if (timing === 'swapped after a warm-up') {
          for (const op of ['read', 'history', 'list', 'verify', 'opsLog'] as const) await OPERATIONS[op]!(repo, storage);
        }
        const { outside } = replaceByLink(root, prefix, base);
        if (timing === 'opened after the swap') {
          storage = new FsStorage({ root });
          repo = await Repository.open(Storage.fromObjectStorage(storage));
        }
        const before = snapshot(outside);
        for (const [name, op] of Object.entries(OPERATIONS)) {
          const outcome = await refusal(op(repo, storage));
          const code = outcome === 'succeeded' ? 'ok' : isFloeError(outcome) ? outcome.code : `untyped: ${String(outcome)}`;
          (table[name] ??= {})[`${prefix}/ ${timing === 'opened after the swap' ? 'before open' : 'after warm-up'}`] = code;
          expect(code, `${name} with ${prefix}/ linked`).not.toMatch(/^untyped/);
          if (code !== 'ok') expect(['INVALID_KEY', 'NOT_FOUND', 'CORRUPT_OBJECT'] as ErrorCode[], `${name}: ${code}`).toContain(code);
          expect(snapshot(outside), `${name} changed the outside folder`).toEqual(before);
        }
        // Whatever walks the linked prefix refuses; GC and commits walk them all.
        const cell = `${prefix}/ ${timing === 'opened after the swap' ? 'before open' : 'after warm-up'}`;
        for (const op of ['gc', 'list', 'listDir', 'delete', 'write']) expect(table[op]![cell], op).toBe('INVALID_KEY');
        if (prefix === 'chunks') expect(table.read![cell]).toBe('INVALID_KEY');
      });
    }
  }
});
