// Issue 17, stage 4: every public entry point turns Node, system and SQLite errors into
// FloeErrors. A seeded sweep calls the package's public API (through src/index.ts, what `floe`
// exports) on hostile inputs: a foreign SQLite file, a file where a directory is expected,
// names past NAME_MAX, unwritable directories, huge shapes, NaN/negative/fractional numbers,
// wrong types, and a repository whose objects are truncated or corrupted. Every rejection must
// be a FloeError whose code docs/errors.md lists; counts by kind are printed. Inputs per seeded
// kind: FLOE_HOSTILE_RUNS (CI default below), seed FLOE_HOSTILE_SEED.
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import {
  createArray, createGroup, ERROR_CODES, get, isFloeError, openArray, openGroup, openStore, Repository, set, slice, Storage, ZarrArray,
  type ErrorCode,
} from '../../src/index.ts';
import { HOSTILE_SEED, hostileRuns } from '../support/hostile-runs.ts';

const RUNS = hostileRuns(60);
const TIME_BUDGET_MS = 30_000;
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const scratch = mkdtempSync(path.join(tmpdir(), 'floe-hostile-boundary-'));
afterAll(() => {
  chmodTree(scratch, 0o755);
  rmSync(scratch, { recursive: true, force: true });
});

/** The codes docs/errors.md documents (one `### \`CODE\`` section each). */
const DOCUMENTED = new Set([...readFileSync(path.join(root, 'docs/errors.md'), 'utf8').matchAll(/^### `([A-Z_]+)`$/gm)].map((m) => m[1]));

interface Tally {
  tried: number;
  accepted: number;
  typed: number;
  untyped: string[];
  codes: Map<string, number>;
}
const tallies = new Map<string, Tally>();
let skippedEacces = 0;

function tally(kind: string): Tally {
  let t = tallies.get(kind);
  if (!t) tallies.set(kind, (t = { tried: 0, accepted: 0, typed: 0, untyped: [], codes: new Map() }));
  return t;
}

/** Runs one hostile call: an acceptance, a documented FloeError, or an untyped error (recorded). */
async function probe(kind: string, label: string, run: () => unknown): Promise<void> {
  const t = tally(kind);
  t.tried++;
  if (process.env['FLOE_HOSTILE_TRACE']) console.log(`probe ${kind} ${label}`);
  try {
    await run();
    t.accepted++;
  } catch (err) {
    if (isFloeError(err) && DOCUMENTED.has(err.code)) {
      t.typed++;
      t.codes.set(err.code, (t.codes.get(err.code) ?? 0) + 1);
    } else {
      const name = err instanceof Error ? `${err.name}${'code' in err ? `(${String(err.code)})` : ''}: ${err.message.slice(0, 120)}` : String(err);
      t.untyped.push(`${label}: ${name}`);
    }
  }
}

/** A value of the wrong type passed where the compiler would refuse it: the boundary must still. */
const hostile = <T>(value: unknown): T => value as T;

// Where a hostile string given as a location lands: five levels down in the scratch directory, so
// a probe that accepts one (a repository at "x", "/a/" or "a/../../b") makes it here, never in the
// checkout or at the filesystem's root. Strings of at most 12 characters climb at most 4 levels.
const locations = path.join(scratch, 'locations', '1', '2', '3', '4');
mkdirSync(locations, { recursive: true });
const contained = (v: unknown): unknown => (typeof v === 'string' && v !== '' ? `${locations}/${v}` : v);

function chmodTree(dir: string, mode: number): void {
  try {
    chmodSync(dir, mode);
    for (const e of readdirSync(dir, { withFileTypes: true })) if (e.isDirectory()) chmodTree(path.join(dir, e.name), mode);
  } catch {
    // best effort: cleanup must not fail the suite
  }
}

let serial = 0;
const fresh = (name: string) => path.join(scratch, `${name}-${serial++}`);
const LONG = 'n'.repeat(300); // past NAME_MAX (255) on every common filesystem

const hostileNumber = fc.oneof(
  fc.constantFrom(Number.NaN, -1, -0.5, 0.5, 1.5, Infinity, -Infinity, 2 ** 53, 2 ** 64, 1e300, -(2 ** 31), 0),
  fc.double(),
  fc.integer({ min: -1e6, max: -1 }),
);
const hostileValue = fc.oneof(
  hostileNumber,
  fc.constantFrom(null, undefined, '', 'x', '1', true, [], {}, [[1]], ['a'], Symbol.iterator, () => 1, 10n),
  fc.array(hostileNumber, { maxLength: 4 }),
  fc.dictionary(fc.string({ maxLength: 4 }), hostileNumber, { maxKeys: 3 }),
);
const hostilePath = fc.oneof(
  fc.constantFrom('', '/', '..', '/../x', 'a/../../b', '\u0000', 'a\u0000b', '//a', '/a/', '.', '/./', '%2e%2e', 'a\\b', LONG, `/${LONG}/a`, '/'.repeat(100)),
  fc.string({ maxLength: 12 }),
  hostileValue,
);

describe('public entry points on hostile inputs give FloeErrors only', () => {
  it('docs/errors.md documents every code', () => {
    for (const code of ERROR_CODES) expect(DOCUMENTED.has(code), code).toBe(true);
  });

  it('foreign SQLite files, directories and long names for Storage.newSqlite', async () => {
    const garbage = fresh('garbage.db');
    writeFileSync(garbage, 'this is not a database, just text'.repeat(200));
    const foreign = fresh('foreign.db');
    const { default: Database } = await import('better-sqlite3');
    const db = new Database(foreign);
    db.exec('CREATE TABLE floe_objects (a INTEGER); INSERT INTO floe_objects VALUES (1); CREATE TABLE floe_generation (x TEXT);');
    db.close();
    const dir = fresh('dir.db');
    mkdirSync(dir);
    const inputs: [string, string][] = [
      ['garbage', garbage], ['foreign-schema', foreign], ['directory', dir], ['missing-parent', path.join(fresh('none'), 'x', 'r.db')],
      ['long-name', path.join(scratch, `${LONG}.db`)], ['nul', `${scratch}/a\u0000b.db`],
    ];
    for (const [label, file] of inputs) {
      await probe('sqlite-file', `newSqlite ${label}`, () => Storage.newSqlite(file));
      await probe('sqlite-file', `Repository.open sqlite ${label}`, async () => Repository.open(Storage.newSqlite(file)));
      await probe('sqlite-file', `Repository.create sqlite ${label}`, async () => Repository.create(Storage.newSqlite(file)));
    }
    for (const value of [null, 42, {}, ['a']]) await probe('sqlite-file', `newSqlite ${String(value)}`, () => Storage.newSqlite(hostile(value)));
    expect(tally('sqlite-file').untyped).toEqual([]);
  });

  it('files where directories are expected, long names, NUL for local filesystem storage and stores', async () => {
    const file = fresh('a-file');
    writeFileSync(file, 'not a directory');
    const roots: [string, string][] = [
      ['file-as-root', file], ['under-a-file', path.join(file, 'repo')], ['long-root', path.join(scratch, LONG)], ['nul-root', `${scratch}/x\u0000`],
    ];
    for (const [label, dir] of roots) {
      await probe('fs-root', `newLocalFilesystem ${label}`, async () => Repository.create(Storage.newLocalFilesystem(dir)));
      await probe('fs-root', `Repository.open ${label}`, async () => Repository.open(Storage.newLocalFilesystem(dir)));
      await probe('fs-root', `Repository.exists ${label}`, async () => Repository.exists(Storage.newLocalFilesystem(dir)));
      await probe('fs-root', `createArray ${label}`, () => createArray(openStore(dir), '/a', { shape: [2], chunkShape: [1], dataType: 'uint8' }));
      await probe('fs-root', `openArray ${label}`, () => openArray(openStore(dir), '/a'));
      await probe('fs-root', `openGroup ${label}`, () => openGroup(openStore(dir), '/'));
      await probe('fs-root', `createGroup ${label}`, () => createGroup(openStore(dir), '/g'));
    }
    for (const value of [null, 42, {}, '']) await probe('fs-root', `newLocalFilesystem ${String(value)}`, () => Storage.newLocalFilesystem(hostile(value)));
    // Long node names inside a good store, and a group where an array's directory is a file.
    const store = openStore(fresh('store'));
    await probe('fs-names', 'createArray long name', () => createArray(store, `/${LONG}`, { shape: [2], chunkShape: [1], dataType: 'uint8' }));
    await probe('fs-names', 'createGroup long name', () => createGroup(store, `/g/${LONG}`));
    await probe('fs-names', 'openArray long name', () => openArray(store, `/${LONG}`));
    const repo = await Repository.create(Storage.newLocalFilesystem(fresh('repo')));
    const session = await repo.writableSession('main');
    await probe('fs-names', 'session createArray long name', () => createArray(session.store, `/${LONG}`, { shape: [2], chunkShape: [1], dataType: 'uint8' }));
    await probe('fs-names', 'createBranch long name', () => repo.createBranch(LONG, session.snapshotId));
    await probe('fs-names', 'createTag long name', () => repo.createTag(LONG, session.snapshotId));
    for (const kind of ['fs-root', 'fs-names']) expect(tally(kind).untyped).toEqual([]);
  });

  it('unwritable directories (chmod 000; skipped and counted when running as root)', async () => {
    const locked = fresh('locked');
    mkdirSync(path.join(locked, 'inner'), { recursive: true });
    const store = openStore(locked);
    await createArray(store, '/a', { shape: [4], chunkShape: [2], dataType: 'uint8' });
    chmodTree(locked, 0o000);
    const calls: [string, () => Promise<unknown>][] = [
      ['openArray', () => openArray(openStore(locked), '/a')],
      ['createArray', () => createArray(openStore(locked), '/b', { shape: [2], chunkShape: [1], dataType: 'uint8' })],
      ['Repository.create', () => Repository.create(Storage.newLocalFilesystem(path.join(locked, 'inner', 'r')))],
      ['Repository.open', () => Repository.open(Storage.newLocalFilesystem(locked))],
      ['newSqlite', async () => Storage.newSqlite(path.join(locked, 'x.db'))],
    ];
    // root bypasses permission bits, so these calls would succeed and prove nothing
    const isRoot = process.getuid?.() === 0;
    for (const [label, run] of calls) {
      if (isRoot) skippedEacces++;
      else await probe('eacces', label, run);
    }
    chmodTree(locked, 0o755);
    expect(isRoot ? skippedEacces : tally('eacces').tried).toBe(calls.length);
    expect(tally('eacces').untyped).toEqual([]);
  });

  it('huge shapes, and resize of a huge grid', async () => {
    const store = openStore(':memory:');
    const shapes: [number[], number[]][] = [
      [[2 ** 53], [1]], [[2 ** 60], [2 ** 60]], [[1e300], [1]], [[2 ** 31, 2 ** 31], [1, 1]], [Array<number>(200).fill(1), Array<number>(200).fill(1)],
      [[Infinity], [1]], [[1e15], [1e15]],
    ];
    for (const [shape, chunkShape] of shapes) {
      await probe('huge-shape', `createArray ${shape.length}d`, () => createArray(store, '/h', { shape, chunkShape, dataType: 'float64', overwrite: true }));
    }
    const big = await createArray(store, '/big', { shape: [1e12], chunkShape: [1], dataType: 'uint8' });
    await probe('huge-shape', 'resize 1e12 chunks down', () => big.resize([1]));
    const wide = await createArray(store, '/wide', { shape: [1e6, 1e6], chunkShape: [1, 1], dataType: 'uint8' });
    await probe('huge-shape', 'resize 1e12 chunks 2d', () => wide.resize([2, 2]));
    await probe('huge-shape', 'resize up to 2^60', () => wide.resize([2 ** 60, 1]));
    await probe('huge-shape', 'get all of 1e12', () => get(big));
    await probe('huge-shape', 'set all of 1e12', () => set(big, undefined, 1));
    expect(tally('huge-shape').untyped).toEqual([]);
  });

  it('seeded NaN, negative, fractional and wrong-typed arguments to arrays, stores and repositories', async () => {
    const store = openStore(':memory:');
    const array = await createArray(store, '/a', { shape: [6, 4], chunkShape: [3, 2], dataType: 'int16' });
    const repo = await Repository.create(Storage.newInMemory());
    const session = await repo.writableSession('main');
    await createArray(session.store, '/r', { shape: [4], chunkShape: [2], dataType: 'float32' });
    const tip = await session.commit('first');
    const started = Date.now();
    const calls: [string, (v: unknown, w: unknown) => unknown][] = [
      ['createArray shape', (v) => createArray(store, '/x', { shape: hostile(v), chunkShape: [1], dataType: 'uint8', overwrite: true })],
      ['createArray chunkShape', (v) => createArray(store, '/x', { shape: [4], chunkShape: hostile(v), dataType: 'uint8', overwrite: true })],
      ['createArray dataType', (v) => createArray(store, '/x', { shape: [4], chunkShape: [2], dataType: hostile(v), overwrite: true })],
      ['createArray fillValue', (v) => createArray(store, '/x', { shape: [4], chunkShape: [2], dataType: 'int8', fillValue: hostile(v), overwrite: true })],
      ['createArray input', (v) => createArray(store, '/x', hostile(v))],
      ['createArray path', (v) => createArray(store, hostile(v), { shape: [4], chunkShape: [2], dataType: 'uint8', overwrite: true })],
      ['openArray path', (v) => openArray(store, hostile(v))],
      ['openGroup path', (v) => openGroup(store, hostile(v))],
      ['openStore location', (v) => openArray(openStore(hostile(v === '' ? null : contained(v))), '/a')],
      ['ZarrArray.open path', (v) => ZarrArray.open(store, hostile(v))],
      ['get selection', (v) => get(array, hostile(v))],
      ['get slice', (v, w) => get(array, [slice(hostile(v), hostile(w)), null])],
      ['get index', (v, w) => get(array, [hostile(v), hostile(w)])],
      ['set value', (v) => set(array, undefined, hostile(v))],
      ['set selection', (v, w) => set(array, hostile([v, w]), 1)],
      ['resize', (v, w) => array.resize(hostile([v, w]))],
      ['resize shape', (v) => array.resize(hostile(v))],
      ['Repository.create storage', (v) => Repository.create(hostile(contained(v)))],
      ['Repository.open storage', (v) => Repository.open(hostile(contained(v)))],
      ['Repository.create config', (v) => Repository.create(Storage.newInMemory(), hostile(v))],
      ['readonlySession', (v) => repo.readonlySession(hostile(v))],
      ['readonlySession snapshot', (v) => repo.readonlySession({ snapshotId: hostile(v) })],
      ['writableSession', (v) => repo.writableSession(hostile(v))],
      ['createBranch name', (v) => repo.createBranch(hostile(v), tip)],
      ['createBranch snapshot', (v) => repo.createBranch('b', hostile(v))],
      ['createTag', (v, w) => repo.createTag(hostile(v), hostile(w))],
      ['deleteBranch', (v) => repo.deleteBranch(hostile(v))],
      ['deleteTag', (v) => repo.deleteTag(hostile(v))],
      ['lookupBranch', (v) => repo.lookupBranch(hostile(v))],
      ['lookupSnapshot', (v) => repo.lookupSnapshot(hostile(v))],
      ['resetBranch', (v) => repo.resetBranch('main', hostile(v))],
      ['commit message', async (v) => {
        const s = await repo.writableSession('main');
        await createArray(s.store, '/c', { shape: [1], chunkShape: [1], dataType: 'uint8', overwrite: true });
        return s.commit(hostile(v));
      }],
      ['commit options', async (v) => {
        const s = await repo.writableSession('main');
        await createArray(s.store, '/c', { shape: [1], chunkShape: [1], dataType: 'uint8', overwrite: true });
        return s.commit('m', hostile(v));
      }],
      ['expireSnapshots', (v) => repo.expireSnapshots(hostile(v))],
      ['expireSnapshots NaN date', (v) => repo.expireSnapshots(new Date(typeof v === 'number' ? v : Number.NaN))],
      ['garbageCollect', (v) => repo.garbageCollect(hostile(v))],
      ['garbageCollect options', (v) => repo.garbageCollect(new Date(0), hostile(v))],
      ['diff', (v, w) => repo.diff(hostile({ fromSnapshotId: v, toBranch: w }))],
      ['setMetadata', (v) => repo.setMetadata(hostile(v))],
    ];
    let index = 0;
    await fc.assert(
      fc.asyncProperty(hostilePath, hostileValue, async (v, w) => {
        for (const [label, call] of calls) {
          if (Date.now() - started > TIME_BUDGET_MS) return;
          await probe(`args:${label.split(' ')[0] ?? label}`, `${label}(${show(v)}, ${show(w)})`, () => call(v, w));
        }
        index++;
      }),
      { seed: HOSTILE_SEED, numRuns: RUNS },
    );
    expect(index).toBeGreaterThan(0);
    const untyped = [...tallies].filter(([kind]) => kind.startsWith('args:')).flatMap(([, t]) => t.untyped);
    expect(untyped.slice(0, 20)).toEqual([]);
  });

  it('truncated and corrupted objects in a repository on disk', async () => {
    const dir = fresh('corrupt-src');
    const repo = await Repository.create(Storage.newLocalFilesystem(dir));
    const session = await repo.writableSession('main');
    const array = await createArray(session.store, '/a', { shape: [8], chunkShape: [2], dataType: 'int32', codecs: [{ name: 'bytes', configuration: { endian: 'little' } }, { name: 'zstd' }] });
    await set(array, undefined, 7);
    await session.commit('data');
    await repo.createTag('v1', session.snapshotId);
    const files = listFiles(dir);
    const rng = fc.sample(fc.integer({ min: 0, max: 2 ** 31 - 1 }), { seed: HOSTILE_SEED, numRuns: files.length * 3 });
    let n = 0;
    for (const file of files) {
      for (const damage of ['truncate', 'flip', 'empty'] as const) {
        const copy = fresh('corrupt');
        copyTree(dir, copy);
        damageFile(path.join(copy, file), damage, rng[n++] ?? 0);
        await probe(`corrupt:${file.split('/')[0] ?? file}`, `${damage} ${file}`, () => readEverything(copy));
      }
    }
    const untyped = [...tallies].filter(([kind]) => kind.startsWith('corrupt:')).flatMap(([, t]) => t.untyped);
    expect(untyped).toEqual([]);
  });

  it('reports the counts by kind, with 0 untyped errors', () => {
    const rows = [...tallies].map(([kind, t]) => `  ${kind}: tried ${t.tried}, accepted ${t.accepted}, FloeError ${t.typed} ` +
      `(${[...t.codes].map(([c, k]) => `${c} ${k}`).join(', ')}), untyped ${t.untyped.length}`);
    const total = [...tallies.values()].reduce((a, t) => ({ tried: a.tried + t.tried, untyped: a.untyped + t.untyped.length }), { tried: 0, untyped: 0 });
    console.log(`public boundary: ${total.tried} calls, ${total.untyped} untyped, EACCES probes skipped as root: ${skippedEacces}\n${rows.join('\n')}`);
    if (process.env['FLOE_HOSTILE_TRACE']) for (const t of tallies.values()) for (const u of t.untyped) console.log(`untyped ${u}`);
    expect(total.tried).toBeGreaterThan(100);
    expect(total.untyped).toBe(0);
  });
});

function show(v: unknown): string {
  if (typeof v === 'string') return JSON.stringify(v.length > 20 ? `${v.slice(0, 20)}…` : v);
  if (typeof v === 'symbol' || typeof v === 'function' || typeof v === 'bigint') return String(typeof v);
  try {
    return JSON.stringify(v) ?? String(v);
  } catch {
    return String(v);
  }
}

async function readEverything(dir: string): Promise<void> {
  const repo = await Repository.open(Storage.newLocalFilesystem(dir));
  await repo.listBranches();
  await repo.listTags();
  for (const version of [{ branch: 'main' }, { tag: 'v1' }]) {
    const session = await repo.readonlySession(version);
    const array = await openArray(session.store, '/a');
    await get(array);
  }
  const writer = await repo.writableSession('main');
  await set(await openArray(writer.store, '/a'), [slice(0, 2)], 1);
  await writer.commit('after damage');
}

function listFiles(dir: string, prefix = ''): string[] {
  return readdirSync(path.join(dir, prefix), { withFileTypes: true }).flatMap((e) => {
    const rel = prefix ? `${prefix}/${e.name}` : e.name;
    return e.isDirectory() ? listFiles(dir, rel) : [rel];
  }).filter((f) => !f.includes('.floe-lock'));
}

function copyTree(from: string, to: string): void {
  mkdirSync(to, { recursive: true });
  for (const e of readdirSync(from, { withFileTypes: true })) {
    const src = path.join(from, e.name);
    if (e.isDirectory()) copyTree(src, path.join(to, e.name));
    else writeFileSync(path.join(to, e.name), readFileSync(src));
  }
}

function damageFile(file: string, damage: 'truncate' | 'flip' | 'empty', random: number): void {
  const size = statSync(file).size;
  if (damage === 'empty') truncateSync(file, 0);
  else if (damage === 'truncate') truncateSync(file, size === 0 ? 0 : random % size);
  else {
    const bytes = readFileSync(file);
    if (bytes.length === 0) return;
    const at = random % bytes.length;
    bytes[at] = (bytes[at] ?? 0) ^ (1 << (random % 8));
    writeFileSync(file, bytes);
  }
}
