// The one conformance suite every ObjectStorage backend runs. A backend test file calls
// `defineStorageContract(name, factory)`; the factory makes a fresh, empty storage per test.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isFloeError } from '../../src/errors.ts';
import type { ObjectInfo, ObjectStorage } from '../../src/engine/storage/types.ts';

export interface StorageHandle {
  storage: ObjectStorage;
  /** Removes whatever the storage left behind (temp dirs, buckets). */
  cleanup?: () => Promise<void>;
}

export type StorageFactory = () => Promise<StorageHandle>;

export interface ContractOptions {
  /** Backends that cannot hold both `a` and `a/b` (a filesystem) skip that case. */
  fileAndDirectorySameName?: boolean;
}

const enc = (s: string) => new TextEncoder().encode(s);
const dec = (b: Uint8Array) => new TextDecoder().decode(b);

export async function collect(iter: AsyncIterable<ObjectInfo>): Promise<ObjectInfo[]> {
  const out: ObjectInfo[] = [];
  for await (const info of iter) out.push(info);
  return out;
}

export async function expectCode(promise: Promise<unknown>, code: string): Promise<void> {
  let caught: unknown;
  try {
    await promise;
  } catch (err) {
    caught = err;
  }
  expect(caught, `expected a FloeError ${code}`).toBeDefined();
  expect(isFloeError(caught) ? caught.code : caught).toBe(code);
}

export const BAD_KEYS = [
  '', '/abs', 'a//b', 'a/../b', '..', '../x', 'a/..', './a', 'a/./b', '.', 'a\\b', 'a\u0000b',
  'a\nb', 'a\u007fb', 'dir/', 'x\ud800y',
];

export function defineStorageContract(name: string, factory: StorageFactory, options: ContractOptions = {}): void {
  describe(`ObjectStorage contract: ${name}`, () => {
    let handle: StorageHandle;
    let s: ObjectStorage;
    beforeEach(async () => {
      handle = await factory();
      s = handle.storage;
    });
    afterEach(async () => {
      await s.close();
      await handle.cleanup?.();
    });

    it('returns null for a missing key and round-trips bytes with a version', async () => {
      expect(await s.get('missing')).toBeNull();
      expect(await s.head('missing')).toBeNull();
      const { version } = await s.put('a/b/c.bin', enc('hello world'));
      expect(typeof version).toBe('string');
      const got = await s.get('a/b/c.bin');
      expect(got && dec(got.bytes)).toBe('hello world');
      expect(got?.version).toBe(version);
      const info = await s.head('a/b/c.bin');
      expect(info).toMatchObject({ key: 'a/b/c.bin', size: 11 });
      expect(info?.lastModified).toBeInstanceOf(Date);
    });

    it('stores empty objects and binary bytes exactly', async () => {
      await s.put('empty', new Uint8Array(0));
      expect((await s.get('empty'))?.bytes.length).toBe(0);
      const all = Uint8Array.from({ length: 256 }, (_, i) => i);
      await s.put('bin', all);
      expect([...((await s.get('bin'))?.bytes ?? [])]).toEqual([...all]);
    });

    it('copies bytes in: mutating the caller buffer does not change the object', async () => {
      const buf = enc('abc');
      await s.put('k', buf);
      buf[0] = 0x7a;
      expect(dec((await s.get('k'))!.bytes)).toBe('abc');
    });

    it('copies Node Buffers in and out too (Buffer#slice is a view, not a copy)', async () => {
      const buf = Buffer.from('abc');
      await s.put('kb', buf);
      buf[0] = 0x7a;
      const first = (await s.get('kb'))!.bytes;
      first[1] = 0x7a;
      expect(dec((await s.get('kb'))!.bytes)).toBe('abc');
    });

    it('reads into a caller buffer when the backend offers readInto', async () => {
      if (!s.readInto) return expect(s.kind).not.toBe('fs'); // the local backend must offer it
      await s.put('ri', enc('hello'));
      const target = new Uint8Array(8).fill(1);
      expect(await s.readInto('ri', target)).toBe(5);
      expect(dec(target.subarray(0, 5))).toBe('hello');
      expect(await s.readInto('ri', new Uint8Array(3))).toBe(5); // too small: reports the length
      expect(await s.readInto('ri', target, { offset: 1, length: 3 })).toBe(3);
      expect(dec(target.subarray(0, 3))).toBe('ell');
      expect(await s.readInto('missing', target)).toBeNull();
    });

    it('refuses a whole-object read past maxBytes with LIMIT_EXCEEDED; ranges and smaller objects are unaffected', async () => {
      await s.put('big', new Uint8Array(10_000).fill(7));
      let caught: unknown;
      try {
        await s.get('big', undefined, { maxBytes: 9_999 });
      } catch (err) {
        caught = err;
      }
      expect(isFloeError(caught) && caught.code).toBe('LIMIT_EXCEEDED');
      expect(isFloeError(caught) && caught.details).toMatchObject({ kind: 'encoded-bytes', limit: 9_999 });
      expect((await s.get('big', undefined, { maxBytes: 10_000 }))?.bytes.length).toBe(10_000);
      expect((await s.get('big', { offset: 0, length: 10_000 }, { maxBytes: 10 }))?.bytes.length).toBe(10_000);
      expect(await s.get('missing', undefined, { maxBytes: 1 })).toBeNull();
    });

    it('answers ranged gets, clamped to the object', async () => {
      await s.put('r', enc('0123456789'));
      const text = async (range: Parameters<ObjectStorage['get']>[1]) => dec((await s.get('r', range))!.bytes);
      expect(await text({ offset: 2, length: 3 })).toBe('234');
      expect(await text({ offset: 7 })).toBe('789');
      expect(await text({ offset: 0, length: 10 })).toBe('0123456789');
      expect(await text({ offset: 8, length: 100 })).toBe('89');
      expect(await text({ offset: 10 })).toBe('');
      expect(await text({ offset: 50, length: 2 })).toBe('');
      expect(await text({ offset: 3, length: 0 })).toBe('');
      expect(await text({ suffixLength: 3 })).toBe('789');
      expect(await text({ suffixLength: 100 })).toBe('0123456789');
      expect(await text({ suffixLength: 0 })).toBe('');
      const full = await s.get('r');
      expect((await s.get('r', { offset: 1, length: 1 }))?.version).toBe(full?.version);
      expect(await s.get('nope', { offset: 0, length: 1 })).toBeNull();
      await expectCode(s.get('r', { offset: -1 }), 'INVALID_ARGUMENT');
      await expectCode(s.get('r', { offset: 1.5 }), 'INVALID_ARGUMENT');
      await expectCode(s.get('r', { suffixLength: -2 }), 'INVALID_ARGUMENT');
    });

    it('creates only when absent with ifNoneMatch', async () => {
      const first = await s.put('ref', enc('one'), { ifNoneMatch: '*' });
      await expectCode(s.put('ref', enc('two'), { ifNoneMatch: '*' }), 'PRECONDITION_FAILED');
      const got = await s.get('ref');
      expect(dec(got!.bytes)).toBe('one');
      expect(got!.version).toBe(first.version);
    });

    it('updates only the expected version with ifMatch', async () => {
      const v1 = (await s.put('repo', enc('v1'))).version;
      const v2 = (await s.put('repo', enc('v2'), { ifMatch: v1 })).version;
      expect(v2).not.toBe(v1);
      await expectCode(s.put('repo', enc('stale'), { ifMatch: v1 }), 'PRECONDITION_FAILED');
      expect(dec((await s.get('repo'))!.bytes)).toBe('v2');
      await expectCode(s.put('absent', enc('x'), { ifMatch: v1 }), 'PRECONDITION_FAILED');
      expect(await s.get('absent')).toBeNull();
      const v3 = (await s.put('repo', enc('v3'), { ifMatch: v2 })).version;
      expect((await s.get('repo'))!.version).toBe(v3);
    });

    it('gives a new version to every write of the same key', async () => {
      const v1 = (await s.put('same', enc('x'))).version;
      const v2 = (await s.put('same', enc('y'))).version;
      const v3 = (await s.put('same', enc('x'))).version;
      expect(v2).not.toBe(v1);
      expect(v3).not.toBe(v2);
      expect((await s.head('same'))?.version ?? v3).toBe(v3);
    });

    it('refuses contradictory conditions', async () => {
      await expectCode(s.put('k', enc('x'), { ifMatch: 'v', ifNoneMatch: '*' }), 'INVALID_ARGUMENT');
    });

    it('recreates a deleted key with ifNoneMatch and refuses a stale ifMatch after delete', async () => {
      const v1 = (await s.put('k', enc('1'))).version;
      await s.delete(['k']);
      expect(await s.get('k')).toBeNull();
      await expectCode(s.put('k', enc('2'), { ifMatch: v1 }), 'PRECONDITION_FAILED');
      await s.put('k', enc('3'), { ifNoneMatch: '*' });
      expect(dec((await s.get('k'))!.bytes)).toBe('3');
    });

    it('copies objects, guarded by the source version', async () => {
      const v1 = (await s.put('src', enc('data'))).version;
      const copied = await s.copy('src', 'backup/1', { ifMatch: v1 });
      const got = await s.get('backup/1');
      expect(dec(got!.bytes)).toBe('data');
      expect(got!.version).toBe(copied.version);
      await s.put('src', enc('changed'));
      await expectCode(s.copy('src', 'backup/2', { ifMatch: v1 }), 'PRECONDITION_FAILED');
      expect(await s.get('backup/2')).toBeNull();
      await s.copy('src', 'backup/1');
      expect(dec((await s.get('backup/1'))!.bytes)).toBe('changed');
      let missing: unknown;
      await s.copy('nothing', 'x').catch((err: unknown) => (missing = err));
      expect(isFloeError(missing, 'NOT_FOUND', 'PRECONDITION_FAILED')).toBe(true);
    });

    it('lists by prefix in key order with sizes and dates', async () => {
      const keys = ['b/2', 'a/1', 'b/10', 'b/1/x', 'c', 'ba', 'b/1/y'];
      for (const k of keys) await s.put(k, enc(k));
      const all = await collect(s.list(''));
      expect(all.map((o) => o.key)).toEqual([...keys].sort());
      expect(all.find((o) => o.key === 'b/10')?.size).toBe(4);
      expect(all.every((o) => o.lastModified instanceof Date)).toBe(true);
      expect((await collect(s.list('b/'))).map((o) => o.key)).toEqual(['b/1/x', 'b/1/y', 'b/10', 'b/2']);
      expect((await collect(s.list('b/1'))).map((o) => o.key)).toEqual(['b/1/x', 'b/1/y', 'b/10']);
      expect((await collect(s.list('b'))).map((o) => o.key)).toEqual(['b/1/x', 'b/1/y', 'b/10', 'b/2', 'ba']);
      expect(await collect(s.list('zzz/'))).toEqual([]);
    });

    it('resumes a listing after a given key with startAfter', async () => {
      const keys = ['a/1', 'a/2', 'a/b/1', 'a/b/2', 'a/c', 'b/1'];
      for (const k of keys) await s.put(k, enc(k));
      const after = async (prefix: string, startAfter: string) => (await collect(s.list(prefix, { startAfter }))).map((o) => o.key);
      expect(await after('a/', 'a/2')).toEqual(['a/b/1', 'a/b/2', 'a/c']);
      expect(await after('a/', 'a/b/1')).toEqual(['a/b/2', 'a/c']);
      expect(await after('a/', 'a/b/')).toEqual(['a/b/1', 'a/b/2', 'a/c']);
      expect(await after('a/', 'a/bz')).toEqual(['a/c']);
      expect(await after('', 'a/c')).toEqual(['b/1']);
      expect(await after('a/', '')).toEqual(['a/1', 'a/2', 'a/b/1', 'a/b/2', 'a/c']);
      expect(await after('a/', 'z')).toEqual([]);
    });

    it('lists one directory level with listDir', async () => {
      for (const k of ['top', 'd/x', 'd/sub/y', 'd/sub/z/w', 'd/other/q', 'e/1']) await s.put(k, enc(k));
      const root = await s.listDir('');
      expect(root.objects.map((o) => o.key)).toEqual(['top']);
      expect(root.prefixes).toEqual(['d/', 'e/']);
      const d = await s.listDir('d/');
      expect(d.objects.map((o) => o.key)).toEqual(['d/x']);
      expect(d.objects[0]?.size).toBe(3);
      expect(d.prefixes).toEqual(['d/other/', 'd/sub/']);
      expect(await s.listDir('nothing/')).toEqual({ objects: [], prefixes: [] });
      await s.delete(['d/other/q']);
      expect((await s.listDir('d/')).prefixes).toEqual(['d/sub/']);
      await expectCode(s.listDir('d'), 'INVALID_KEY');
    });

    it('lists more objects than one page holds', async () => {
      const keys = Array.from({ length: 1205 }, (_, i) => `many/${String(i).padStart(5, '0')}`);
      const batch = 50;
      for (let i = 0; i < keys.length; i += batch) {
        await Promise.all(keys.slice(i, i + batch).map((k) => s.put(k, new Uint8Array([1]))));
      }
      const listed = await collect(s.list('many/'));
      expect(listed.length).toBe(keys.length);
      expect(listed.map((o) => o.key)).toEqual(keys);
      await s.delete(keys);
      expect(await collect(s.list('many/'))).toEqual([]);
    });

    it('deletes in batches, missing keys included', async () => {
      await s.put('x/1', enc('1'));
      await s.put('x/2', enc('2'));
      await s.delete(['x/1', 'x/2', 'x/never']);
      await s.delete([]);
      expect(await collect(s.list('x/'))).toEqual([]);
    });

    it('rejects keys that could escape the root or alias another key', async () => {
      for (const key of BAD_KEYS) {
        await expectCode(s.get(key), 'INVALID_KEY');
        await expectCode(s.put(key, enc('x')), 'INVALID_KEY');
        await expectCode(s.delete([key]), 'INVALID_KEY');
      }
      await expectCode(s.head('../etc/passwd'), 'INVALID_KEY');
      await expectCode(s.copy('ok', '../out'), 'INVALID_KEY');
      await expectCode(collect(s.list('../')), 'INVALID_KEY');
      let message = '';
      await s.get('a/../b').catch((err: Error) => (message = err.message));
      expect(message).toContain('a/../b');
      expect(await collect(s.list(''))).toEqual([]);
    });

    it('accepts unusual but safe keys', async () => {
      const keys = ['.hidden', 'a/.b', 'sp ace/ü/日本', 'x..y', 'a/...', 'emoji/😀', 'a-b_c=d+e%20'];
      for (const k of keys) await s.put(k, enc(k));
      for (const k of keys) expect(dec((await s.get(k))!.bytes)).toBe(k);
      expect((await collect(s.list(''))).map((o) => o.key).sort()).toEqual([...keys].sort());
    });

    if (options.fileAndDirectorySameName !== false) {
      it('holds an object and a prefix of the same name', async () => {
        await s.put('a', enc('file'));
        await s.put('a/b', enc('child'));
        expect(dec((await s.get('a'))!.bytes)).toBe('file');
        expect((await s.listDir('')).objects.map((o) => o.key)).toEqual(['a']);
      });
    }

    it('rejects every call with ABORTED when its signal has fired, touching nothing', async () => {
      const { version } = await s.put('kept', enc('old'));
      const controller = new AbortController();
      controller.abort(new Error('stop'));
      const signal = controller.signal;
      const calls: [string, () => Promise<unknown>][] = [
        ['get', () => s.get('kept', undefined, { signal })],
        ['get range', () => s.get('kept', { offset: 1, length: 1 }, { signal })],
        ['head', () => s.head('kept', { signal })],
        ['put', () => s.put('kept', enc('new'), { signal })],
        ['put ifMatch', () => s.put('kept', enc('new'), { ifMatch: version, signal })],
        ['put ifNoneMatch', () => s.put('fresh/a', enc('new'), { ifNoneMatch: '*', signal })],
        ['put new', () => s.put('fresh/b', enc('new'), { signal })],
        ['copy', () => s.copy('kept', 'fresh/c', { signal })],
        ['list', () => collect(s.list('', { signal }))],
        ['listDir', () => s.listDir('', { signal })],
        ['delete', () => s.delete(['kept'], { signal })],
      ];
      for (const [name, call] of calls) {
        const err = await call().then(() => undefined, (e: unknown) => e);
        expect(isFloeError(err, 'ABORTED') ? err.details : err, name).toEqual({ timedOut: false, reason: 'stop' });
      }
      expect((await collect(s.list(''))).map((o) => o.key)).toEqual(['kept']);
      const kept = await s.get('kept');
      expect(kept && dec(kept.bytes)).toBe('old');
      expect(kept?.version).toBe(version);
    });

    it('tells a fired AbortSignal.timeout apart: ABORTED with timedOut', async () => {
      const signal = AbortSignal.timeout(1);
      await new Promise((resolve) => setTimeout(resolve, 20));
      const err = await s.put('late', enc('x'), { signal }).then(() => undefined, (e: unknown) => e);
      expect(isFloeError(err, 'ABORTED') && err.details.timedOut).toBe(true);
      expect(await s.head('late')).toBeNull();
    });

    it('lets exactly one of many concurrent conditional writers win', async () => {
      const base = (await s.put('cas', enc('0'))).version;
      const writers = Array.from({ length: 8 }, (_, i) =>
        s.put('cas', enc(`w${i}`), { ifMatch: base }).then(
          () => i,
          (err: unknown) => {
            if (!isFloeError(err, 'PRECONDITION_FAILED')) throw err;
            return -1;
          },
        ),
      );
      const winners = (await Promise.all(writers)).filter((i) => i >= 0);
      expect(winners.length).toBe(1);
      expect(dec((await s.get('cas'))!.bytes)).toBe(`w${winners[0]}`);
      const creators = Array.from({ length: 8 }, (_, i) =>
        s.put('fresh', enc(`c${i}`), { ifNoneMatch: '*' }).then(() => 1, () => 0),
      );
      expect((await Promise.all(creators)).reduce((a: number, b: number) => a + b, 0)).toBe(1);
    });
  });
}
