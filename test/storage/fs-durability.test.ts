// What each filesystem durability mode promises (docs/storage.md, "Durability"). A model test runs
// puts in a child process under a file-size limit, so writes past it fail midway with part of
// their bytes on disk: in 'atomic' and 'fsync' every key then holds exactly its last acknowledged
// value (the old one after a failure) and no temp file is left; in 'none' a failed write leaves
// the torn prefix. The in-place mode's other promises (version tokens, links, conditions) are
// checked in process.
import { spawn } from 'node:child_process';
import { linkSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/engine/api.ts';
import { ZarrArray } from '../../src/engine/array.ts';
import { FsStorage, type Durability } from '../../src/engine/storage/fs.ts';
import { refusal } from '../support/error-code.ts';
import { bundledWorker } from '../support/bundled-worker.ts';

const TRIALS = Number(process.env.FLOE_DURABILITY_TRIALS ?? 4);
const LIMIT_BLOCKS = 64; // `ulimit -f` counts 512-byte blocks in sh
const LIMIT = LIMIT_BLOCKS * 512;
const here = path.dirname(fileURLToPath(import.meta.url));
const scratch = mkdtempSync(path.join(tmpdir(), 'floe-durability-'));
const worker = bundledWorker(path.join(here, 'durability-worker.ts'), 'floe-durability-test');
const bundle = worker.path;
let dirs = 0;
const refused = async (run: () => unknown) => (await refusal(run)).code;
const freshRoot = () => path.join(scratch, `r${dirs++}`);

beforeAll(async () => {
  await worker.build();
});
afterAll(() => {
  rmSync(scratch, { recursive: true, force: true });
  worker.remove();
});

/** Runs the worker under the file-size limit; resolves with its JSON line. */
function underLimit(args: string[]): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const child = spawn('sh', ['-c', `ulimit -f ${LIMIT_BLOCKS}; exec "$0" "$@"`, process.execPath, '--no-warnings', bundle, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    const cap = setTimeout(() => child.kill('SIGKILL'), 30_000); // a stuck child fails the test, never hangs it
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('close', (code) => {
      clearTimeout(cap);
      if (code === 0) resolve(JSON.parse(out.trim()));
      else reject(new Error(`worker exited ${code}: ${err}`));
    });
  });
}

/** Files under `root`, relative, sorted. */
function filesUnder(root: string): string[] {
  return readdirSync(root, { recursive: true, withFileTypes: true }).filter((e) => e.isFile())
    .map((e) => path.relative(root, path.join(e.parentPath, e.name))).sort();
}

const KEYS = ['a', 'b/c', 'b/d'];
const SIZES = [0, 1000, 20_000, LIMIT, LIMIT + 1, 50_000, 200_000]; // both sides of the limit, sync and thread-pool writes
const opArb = fc.record({ key: fc.constantFrom(...KEYS), size: fc.constantFrom(...SIZES), byte: fc.integer({ min: 1, max: 255 }) });
const initial = (i: number) => new Uint8Array(8000).fill(200 + i);

describe('durability under a write that fails midway', () => {
  it.each<Durability>(['atomic', 'fsync'])("'%s': every key holds its last acknowledged value, nothing torn, no temp file", async (durability) => {
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 1, maxLength: 8 }), async (ops) => {
        const root = freshRoot();
        const setup = new FsStorage({ root, durability });
        for (const [i, key] of KEYS.entries()) await setup.put(key, initial(i));
        const results = (await underLimit([root, durability, 'puts', JSON.stringify(ops)])) as { ok: boolean; code?: string }[];
        const model = new Map(KEYS.map((key, i) => [key, initial(i)]));
        for (const [i, op] of ops.entries()) {
          expect(results[i]).toEqual(op.size <= LIMIT ? { ok: true } : { ok: false, code: 'STORAGE_ERROR' });
          if (op.size <= LIMIT) model.set(op.key, new Uint8Array(op.size).fill(op.byte));
        }
        for (const [key, bytes] of model) expect(Buffer.from((await setup.get(key))!.bytes).equals(Buffer.from(bytes))).toBe(true);
        expect(filesUnder(root)).toEqual([...KEYS].sort()); // no temp or lock file left behind
        rmSync(root, { recursive: true, force: true });
      }),
      { numRuns: TRIALS, seed: 7 },
    );
  });

  it("'none': a failed in-place write leaves the torn prefix", async () => {
    const root = freshRoot();
    const setup = new FsStorage({ root, durability: 'none' });
    await setup.put('a', initial(0));
    const results = await underLimit([root, 'none', 'puts', JSON.stringify([{ key: 'a', size: 50_000, byte: 9 }])]);
    expect(results).toEqual([{ ok: false, code: 'STORAGE_ERROR' }]);
    expect(Buffer.from(readFileSync(path.join(root, 'a'))).equals(Buffer.alloc(LIMIT, 9))).toBe(true);
  });

  async function chunkedArray(durability: Durability) {
    const root = freshRoot();
    // 4 chunks of 16,384 int32 (64 KiB each, past the limit), holding 7.
    const array = await ZarrArray.create(openStore(root, { durability }), '/x', { shape: [4, 16_384], chunkShape: [1, 16_384], dataType: 'int32', fillValue: 0 });
    await array.set(undefined, 7);
    return { root, array };
  }

  it.each<Durability>(['atomic', 'fsync'])("'%s': an array overwrite that fails leaves the old data readable", async (durability) => {
    const { root, array } = await chunkedArray(durability);
    expect(await underLimit([root, durability, 'set', '/x', '9'])).toEqual({ ok: false, code: 'STORAGE_ERROR' });
    expect(new Set((await array.get()).data as Int32Array)).toEqual(new Set([7]));
    expect(filesUnder(root).filter((f) => f.includes('.floe-'))).toEqual([]);
  });

  it("'none': an array overwrite that fails leaves a chunk that no longer reads", async () => {
    const { root, array } = await chunkedArray('none');
    expect(await underLimit([root, 'none', 'set', '/x', '9'])).toEqual({ ok: false, code: 'STORAGE_ERROR' });
    expect(await refused(() => array.get())).toBe('CORRUPT_OBJECT');
  });
});

describe('durability option', () => {
  it("defaults to 'fsync' for FsStorage and 'atomic' for openStore, and takes the older `durable`", () => {
    const root = freshRoot();
    expect(new FsStorage({ root }).durability).toBe('fsync');
    expect(new FsStorage({ root, durable: false }).durability).toBe('atomic');
    expect(new FsStorage({ root, durable: true }).durability).toBe('fsync');
    expect(new FsStorage({ root, durability: 'none' }).durability).toBe('none');
    const storageOf = (store: ReturnType<typeof openStore>) => (store.storage as FsStorage).durability;
    expect(storageOf(openStore(root))).toBe('atomic');
    expect(storageOf(openStore(root, { durable: true }))).toBe('fsync');
    expect(storageOf(openStore(root, { durability: 'none' }))).toBe('none');
  });

  it('refuses an unknown mode and a contradiction', async () => {
    const root = freshRoot();
    expect(await refused(() => new FsStorage({ root, durability: 'sometimes' as Durability }))).toBe('INVALID_ARGUMENT');
    expect(await refused(() => new FsStorage({ root, durability: 'none', durable: true }))).toBe('INVALID_ARGUMENT');
    expect(await refused(() => openStore(root, { durability: 'atomic', durable: true }))).toBe('INVALID_ARGUMENT');
  });
});

describe("durability 'none'", () => {
  const enc = (s: string) => new TextEncoder().encode(s);

  it('writes in place (same inode) where atomic writes replace the file', async () => {
    for (const [durability, sameInode] of [['none', true], ['atomic', false]] as const) {
      const s = new FsStorage({ root: freshRoot(), durability });
      await s.put('k', enc('one'));
      const before = statSync(path.join(s.root, 'k')).ino;
      await s.put('k', enc('two'));
      expect(statSync(path.join(s.root, 'k')).ino === before).toBe(sameInode);
      expect(new TextDecoder().decode((await s.get('k'))!.bytes)).toBe('two');
    }
  });

  it('gives a same-size overwrite a new version token, so a stale ifMatch fails and changes nothing', async () => {
    const s = new FsStorage({ root: freshRoot(), durability: 'none' });
    const first = await s.put('k', enc('aaaa'));
    const second = await s.put('k', enc('bbbb'));
    expect(second.version).not.toBe(first.version);
    expect(await refused(() => s.put('k', enc('cccc'), { ifMatch: first.version }))).toBe('PRECONDITION_FAILED');
    expect(await refused(() => s.put('k', enc('dddd'), { ifNoneMatch: '*' }))).toBe('PRECONDITION_FAILED');
    expect(new TextDecoder().decode((await s.get('k'))!.bytes)).toBe('bbbb');
  });

  it('replaces, never writes through, a file with another hard link or a symlink, as atomic writes do', async () => {
    const s = new FsStorage({ root: freshRoot(), durability: 'none' });
    await s.put('k', enc('old'));
    const outside = path.join(freshRoot());
    mkdirSync(outside);
    linkSync(path.join(s.root, 'k'), path.join(outside, 'other-name'));
    await s.put('k', enc('new'));
    expect(readFileSync(path.join(outside, 'other-name'), 'utf8')).toBe('old');
    expect(readFileSync(path.join(s.root, 'k'), 'utf8')).toBe('new');
    writeFileSync(path.join(outside, 'target'), 'keep');
    symlinkSync(path.join(outside, 'target'), path.join(s.root, 'link'));
    await s.put('link', enc('x'));
    expect(readFileSync(path.join(outside, 'target'), 'utf8')).toBe('keep');
    expect(lstatSync(path.join(s.root, 'link')).isFile()).toBe(true);
  });
});
