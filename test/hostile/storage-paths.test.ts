// Issue 17, stage 1: no storage backend reads, writes, lists or deletes outside its root. Seeded
// path probes (FLOE_HOSTILE_PATH_PROBES per backend, default 500) run every operation with
// hostile keys over fs, sqlite and memory storages. The fs root has symlinks planted inside it
// that point outside (directory and file links, at several depths); a sentinel directory outside
// the root is snapshotted before and after, and its files carry a marker that must never come
// back from a read or a listing. Every refusal must be a FloeError with a stable code.
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { isFloeError, type ErrorCode } from '../../src/errors.ts';
import { FsStorage } from '../../src/engine/storage/fs.ts';
import { MemoryStorage } from '../../src/engine/storage/memory.ts';
import { SqliteStorage } from '../../src/engine/storage/sqlite.ts';
import type { ObjectStorage } from '../../src/engine/storage/types.ts';
import { Repository, Storage } from '../../src/txn/index.ts';
import { ZarrArray } from '../../src/engine/array.ts';

const PROBES = Number(process.env.FLOE_HOSTILE_PATH_PROBES ?? 500);
const SEED = Number(process.env.FLOE_HOSTILE_SEED ?? 17);
const TIME_BUDGET_MS = 60_000;
const MARKER = 'SENTINEL-OUTSIDE-THE-ROOT';
/** Codes a refused probe may give: the key is bad, the object is not there, or a condition lost. */
const STABLE_CODES: readonly ErrorCode[] = ['INVALID_KEY', 'INVALID_ARGUMENT', 'NOT_FOUND', 'PRECONDITION_FAILED'];

const scratch = mkdtempSync(path.join(tmpdir(), 'floe-hostile-paths-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Every file and directory under `dir` with its content hash (files) and mtime: what must not change. */
function snapshot(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const full = path.join(d, e.name);
      if (e.isDirectory()) {
        out.set(`${full}/`, String(statSync(full).mtimeMs));
        walk(full);
      } else out.set(full, `${createHash('sha256').update(readFileSync(full)).digest('hex')}:${statSync(full).mtimeMs}`);
    }
  };
  walk(dir);
  return out;
}

/** A sentinel tree outside the root, and a root with links into it. */
function plant(base: string): { root: string; sentinel: string } {
  const root = path.join(base, 'root');
  const sentinel = path.join(base, 'sentinel');
  for (const d of ['a', 'b/c', 'deep/1/2']) mkdirSync(path.join(sentinel, d), { recursive: true });
  for (const f of ['secret', 'a/secret', 'a/chunk0', 'b/c/secret', 'deep/1/2/secret', 'outside-only']) writeFileSync(path.join(sentinel, f), `${MARKER} ${f}`);
  for (const d of ['x/y', 'deep/1/2', 'real']) mkdirSync(path.join(root, d), { recursive: true });
  writeFileSync(path.join(root, 'real', 'obj'), 'inside');
  symlinkSync(path.join(sentinel, 'a'), path.join(root, 'chunks')); // depth 1, directory
  symlinkSync(path.join(sentinel, 'b'), path.join(root, 'x', 'y', 'link')); // depth 3, directory
  symlinkSync(path.join(sentinel, 'deep'), path.join(root, 'deep', '1', '2', 'l')); // depth 4, directory
  symlinkSync('../../sentinel', path.join(root, 'x', 'rel')); // relative directory link
  symlinkSync(path.join(sentinel, 'secret'), path.join(root, 'file-link')); // file, depth 1
  symlinkSync(path.join(sentinel, 'a', 'secret'), path.join(root, 'x', 'y', 'flink')); // file, depth 3
  symlinkSync(path.join(sentinel, 'missing'), path.join(root, 'dangling')); // dangling: a write would create it outside
  return { root, sentinel };
}

const piece = fc.constantFrom('chunks', 'x', 'y', 'link', 'rel', 'deep', '1', '2', 'l', 'c', 'a', 'b', 'file-link', 'flink', 'dangling', 'real', 'obj',
  'secret', 'chunk0', 'outside-only', 'new', '..', '.', '', '%2e%2e', '%252e%252e', '.%2e', 'a\\b', '\\', '\u0000', 'sentinel', '.floe-lock.x', '~', ' ');
const hostileKey = fc.tuple(fc.boolean(), fc.array(piece, { minLength: 1, maxLength: 6 }), fc.constantFrom('', '', '/'))
  .map(([abs, parts, end]) => `${abs ? '/' : ''}${parts.join('/')}${end}`);
// Valid keys walking the planted links: these get past key validation and test containment.
const safePiece = fc.constantFrom('chunks', 'x', 'y', 'link', 'rel', 'deep', '1', '2', 'l', 'c', 'a', 'b', 'file-link', 'flink', 'dangling', 'real', 'obj',
  'secret', 'chunk0', 'outside-only', 'new', 'sentinel');
const walkingKey = fc.oneof(
  fc.array(safePiece, { minLength: 1, maxLength: 6 }).map((parts) => parts.join('/')),
  fc.tuple(fc.constantFrom('chunks', 'x/y/link', 'deep/1/2/l', 'x/rel', 'x/rel/a', 'x/rel/b/c', 'file-link', 'x/y/flink', 'dangling', 'real'), fc.array(safePiece, { maxLength: 3 }))
    .map(([start, parts]) => [start, ...parts].join('/')),
);
const keyArb = fc.oneof({ arbitrary: walkingKey, weight: 3 }, { arbitrary: hostileKey, weight: 1 });
const op = fc.constantFrom('get', 'getRange', 'readInto', 'head', 'put', 'putCreate', 'copy', 'delete', 'list', 'listDir');
const probeArb = fc.tuple(op, keyArb, keyArb);

interface Tally { probes: number; ok: number; refused: Record<string, number>; escapes: string[]; untyped: string[] }

/** `written`: the keys the storage holds legitimately; a listing showing any other is an escape. */
async function runProbes(storage: ObjectStorage, label: string, written: Set<string>): Promise<Tally> {
  const tally: Tally = { probes: 0, ok: 0, refused: {}, escapes: [], untyped: [] };
  const probes = fc.sample(probeArb, { numRuns: PROBES, seed: SEED });
  const started = Date.now();
  const leaked = (bytes: Uint8Array | null | undefined) => bytes && Buffer.from(bytes).includes(MARKER);
  for (const [kind, key, other] of probes) {
    if (Date.now() - started > TIME_BUDGET_MS) break;
    tally.probes++;
    const what = `${label} ${kind}(${JSON.stringify(key)}${kind === 'copy' ? `, ${JSON.stringify(other)}` : ''})`;
    try {
      switch (kind) {
        case 'get': case 'getRange': {
          const got = await storage.get(key, kind === 'getRange' ? { offset: 0, length: 8 } : undefined);
          if (leaked(got?.bytes)) tally.escapes.push(what);
          break;
        }
        case 'readInto': {
          const target = new Uint8Array(256);
          const n = await storage.readInto?.(key, target);
          if (typeof n === 'number' && leaked(target.subarray(0, Math.min(n, 256)))) tally.escapes.push(what);
          break;
        }
        case 'head': await storage.head(key); break;
        case 'put': await storage.put(key, Buffer.from('probe')); written.add(key); break;
        case 'putCreate': await storage.put(key, Buffer.from('probe'), { ifNoneMatch: '*' }); written.add(key); break;
        case 'copy': {
          await storage.copy(key, other);
          written.add(other);
          const copied = await storage.get(other).catch(() => null);
          if (leaked(copied?.bytes)) tally.escapes.push(what);
          break;
        }
        case 'delete': await storage.delete([key]); break;
        case 'list': {
          for await (const o of storage.list(key)) if (!written.has(o.key)) tally.escapes.push(`${what} listed ${o.key}, never written`);
          break;
        }
        case 'listDir': {
          const { objects, prefixes } = await storage.listDir(key.endsWith('/') || key === '' ? key : `${key}/`);
          for (const o of objects) if (!written.has(o.key)) tally.escapes.push(`${what} listed ${o.key}, never written`);
          for (const p of prefixes) if (![...written].some((k) => k.startsWith(p))) tally.escapes.push(`${what} listed ${p}, never written under`);
          break;
        }
      }
      tally.ok++;
    } catch (err) {
      if (isFloeError(err) && STABLE_CODES.includes(err.code)) tally.refused[err.code] = (tally.refused[err.code] ?? 0) + 1;
      else tally.untyped.push(`${what}: ${String(err)}`);
    }
  }
  return tally;
}

describe('hostile storage paths', () => {
  const results: Record<string, Tally> = {};
  afterAll(() => console.log('path probes:', JSON.stringify(Object.fromEntries(Object.entries(results).map(([k, t]) => [k, { ...t, escapes: t.escapes.length, untyped: t.untyped.length }])))));

  // 'none' writes objects in place, opening the final name itself: probed apart.
  it.each(['atomic', 'none'] as const)('fs (%s): no read, write, listing or delete leaves the root through planted symlinks', async (durability) => {
    const { root, sentinel } = plant(mkdtempSync(path.join(scratch, 'fs-')));
    const before = snapshot(sentinel);
    const tally = await runProbes(new FsStorage({ root, durability }), 'fs', new Set(['real/obj']));
    results[durability === 'atomic' ? 'fs' : 'fs-none'] = tally;
    expect(tally.untyped).toEqual([]);
    expect(tally.escapes).toEqual([]);
    expect(snapshot(sentinel)).toEqual(before);
    expect(tally.probes).toBeGreaterThanOrEqual(Math.min(PROBES, 100));
    expect(tally.refused.INVALID_KEY ?? 0).toBeGreaterThan(0);
  });

  for (const [label, make] of [
    ['sqlite', (dir: string) => new SqliteStorage({ file: path.join(dir, 'root', 'repo.floe.sqlite') })],
    ['memory', () => new MemoryStorage()],
  ] as const) {
    it(`${label}: the same probes give typed refusals and touch nothing outside`, async () => {
      const base = mkdtempSync(path.join(scratch, `${label}-`));
      const { sentinel } = plant(base);
      const before = snapshot(sentinel);
      const storage = make(base);
      try {
        const tally = await runProbes(storage, label, new Set());
        results[label] = tally;
        expect(tally.untyped).toEqual([]);
        expect(tally.escapes).toEqual([]);
        expect(tally.probes).toBeGreaterThanOrEqual(Math.min(PROBES, 100));
      } finally {
        await storage.close();
      }
      expect(snapshot(sentinel)).toEqual(before);
    });
  }

  it('a repository whose chunks/ is a symlink out of it refuses the commit with INVALID_KEY, writing nothing outside', async () => {
    const base = mkdtempSync(path.join(scratch, 'repo-'));
    const outside = path.join(base, 'elsewhere');
    mkdirSync(outside);
    const dir = path.join(base, 'repo');
    const repo = await Repository.create(Storage.newLocalFilesystem(dir), { inlineChunkThresholdBytes: 0 });
    symlinkSync(outside, path.join(dir, 'chunks'));
    const session = await repo.writableSession('main');
    const a = await ZarrArray.create(session.store, '/a', { shape: [8], chunkShape: [4], dataType: 'int32', fillValue: 0 });
    const failed: unknown = await a.set(undefined, 5).then(() => session.commit('c')).then(() => undefined, (e: unknown) => e);
    if (!isFloeError(failed, 'INVALID_KEY')) throw new Error(`expected INVALID_KEY, got ${String(failed)}`);
    expect(failed.message).toContain('symbolic link');
    expect(readdirSync(outside)).toEqual([]);
  });
});
