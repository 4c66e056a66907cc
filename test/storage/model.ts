// Model-based property test shared by every backend: fast-check generates random sequences of
// puts, conditional puts, gets (ranged too), heads, copies, deletes and listings; each command runs
// against the real storage and a Map model, and their answers must agree.
import fc from 'fast-check';
import { expect, it } from 'vitest';
import { isFloeError } from '../../src/errors.ts';
import type { ByteRange, ObjectStorage } from '../../src/engine/storage/types.ts';
import { collect, type StorageFactory } from './contract.ts';

interface Entry {
  bytes: Uint8Array;
  version: string;
}

interface Model {
  objects: Map<string, Entry>;
  /** Every version token the storage ever returned, for stale-token conditional writes. */
  seenVersions: string[];
}

type Real = ObjectStorage;
type Cmd = fc.AsyncCommand<Model, Real>;

// No key is a prefix directory of another key, so a filesystem can hold them all.
const KEYS = ['a', 'b', 'dir/x', 'dir/y', 'dir/sub/z', 'ref.json', 'other/1'];
const PREFIXES = ['', 'dir/', 'dir/sub/', 'dir', 'r', 'other/', 'nothing/'];
const DIR_PREFIXES = ['', 'dir/', 'dir/sub/', 'other/', 'nothing/'];

const keyArb = fc.constantFrom(...KEYS);
const bytesArb = fc.uint8Array({ maxLength: 24 });
const rangeArb: fc.Arbitrary<ByteRange | undefined> = fc.oneof(
  fc.constant(undefined),
  fc.record({ offset: fc.nat(30), length: fc.option(fc.nat(30), { nil: undefined }) }).map((r) =>
    r.length === undefined ? { offset: r.offset } : { offset: r.offset, length: r.length },
  ),
  fc.record({ suffixLength: fc.nat(30) }),
);

async function outcome<T>(action: () => Promise<T>): Promise<{ ok: T } | { failed: string }> {
  try {
    return { ok: await action() };
  } catch (err) {
    if (isFloeError(err, 'PRECONDITION_FAILED', 'NOT_FOUND')) return { failed: err.code };
    throw err;
  }
}

function slice(bytes: Uint8Array, range: ByteRange | undefined): number[] {
  if (!range) return [...bytes];
  if ('suffixLength' in range) return range.suffixLength === 0 ? [] : [...bytes.slice(-range.suffixLength)];
  return [...bytes.slice(range.offset, range.length === undefined ? undefined : range.offset + range.length)];
}

class PutCmd implements Cmd {
  constructor(readonly key: string, readonly bytes: Uint8Array, readonly mode: 'plain' | 'create' | 'current' | 'stale', readonly pick: number) {}
  check = () => true;
  async run(m: Model, r: Real): Promise<void> {
    const current = m.objects.get(this.key);
    let options = {};
    let shouldWin = true;
    if (this.mode === 'create') {
      options = { ifNoneMatch: '*' };
      shouldWin = !current;
    } else if (this.mode === 'current' || this.mode === 'stale') {
      const token = this.mode === 'current' && current ? current.version : (m.seenVersions[this.pick % Math.max(1, m.seenVersions.length)] ?? 'never-issued');
      options = { ifMatch: token };
      shouldWin = current?.version === token;
    }
    const result = await outcome(() => r.put(this.key, this.bytes, options));
    expect('ok' in result, `put ${this.key} ${this.mode} should ${shouldWin ? 'win' : 'lose'}`).toBe(shouldWin);
    if ('ok' in result) {
      m.objects.set(this.key, { bytes: this.bytes.slice(), version: result.ok.version });
      m.seenVersions.push(result.ok.version);
    } else {
      expect(result.failed).toBe('PRECONDITION_FAILED');
    }
  }
  toString = () => `put(${this.key}, ${this.bytes.length}B, ${this.mode})`;
}

class GetCmd implements Cmd {
  constructor(readonly key: string, readonly range: ByteRange | undefined) {}
  check = () => true;
  async run(m: Model, r: Real): Promise<void> {
    const got = await r.get(this.key, this.range);
    const want = m.objects.get(this.key);
    if (!want) return void expect(got).toBeNull();
    expect(got).not.toBeNull();
    expect([...got!.bytes]).toEqual(slice(want.bytes, this.range));
    expect(got!.version).toBe(want.version);
  }
  toString = () => `get(${this.key}, ${JSON.stringify(this.range)})`;
}

class HeadCmd implements Cmd {
  constructor(readonly key: string) {}
  check = () => true;
  async run(m: Model, r: Real): Promise<void> {
    const info = await r.head(this.key);
    const want = m.objects.get(this.key);
    if (!want) return void expect(info).toBeNull();
    expect(info?.size).toBe(want.bytes.length);
    if (info?.version !== undefined) expect(info.version).toBe(want.version);
  }
  toString = () => `head(${this.key})`;
}

class CopyCmd implements Cmd {
  constructor(readonly from: string, readonly to: string, readonly guarded: boolean) {}
  check = () => true;
  async run(m: Model, r: Real): Promise<void> {
    const source = m.objects.get(this.from);
    const result = await outcome(() => r.copy(this.from, this.to, this.guarded && source ? { ifMatch: source.version } : {}));
    if (!source) return void expect('failed' in result).toBe(true);
    expect('ok' in result).toBe(true);
    if ('ok' in result) {
      m.objects.set(this.to, { bytes: source.bytes, version: result.ok.version });
      m.seenVersions.push(result.ok.version);
    }
  }
  toString = () => `copy(${this.from} -> ${this.to}${this.guarded ? ', ifMatch' : ''})`;
}

class DeleteCmd implements Cmd {
  constructor(readonly keys: string[]) {}
  check = () => true;
  async run(m: Model, r: Real): Promise<void> {
    await r.delete(this.keys);
    for (const key of this.keys) m.objects.delete(key);
  }
  toString = () => `delete(${this.keys.join(',')})`;
}

class ListCmd implements Cmd {
  constructor(readonly prefix: string) {}
  check = () => true;
  async run(m: Model, r: Real): Promise<void> {
    const listed = await collect(r.list(this.prefix));
    const want = [...m.objects.keys()].filter((k) => k.startsWith(this.prefix)).sort();
    expect(listed.map((o) => o.key)).toEqual(want);
    for (const o of listed) expect(o.size).toBe(m.objects.get(o.key)?.bytes.length);
  }
  toString = () => `list(${JSON.stringify(this.prefix)})`;
}

class ListDirCmd implements Cmd {
  constructor(readonly prefix: string) {}
  check = () => true;
  async run(m: Model, r: Real): Promise<void> {
    const { objects, prefixes } = await r.listDir(this.prefix);
    const under = [...m.objects.keys()].filter((k) => k.startsWith(this.prefix)).map((k) => k.slice(this.prefix.length));
    const wantObjects = under.filter((rest) => !rest.includes('/')).map((rest) => this.prefix + rest).sort();
    const wantPrefixes = [...new Set(under.filter((rest) => rest.includes('/')).map((rest) => `${this.prefix}${rest.split('/')[0]}/`))].sort();
    expect(objects.map((o) => o.key)).toEqual(wantObjects);
    expect(prefixes).toEqual(wantPrefixes);
  }
  toString = () => `listDir(${JSON.stringify(this.prefix)})`;
}

const commandArbs = [
  fc.tuple(keyArb, bytesArb, fc.constantFrom('plain', 'create', 'current', 'stale') as fc.Arbitrary<PutCmd['mode']>, fc.nat()).map(
    ([k, b, mode, pick]) => new PutCmd(k, b, mode, pick),
  ),
  fc.tuple(keyArb, rangeArb).map(([k, range]) => new GetCmd(k, range)),
  keyArb.map((k) => new HeadCmd(k)),
  fc.tuple(keyArb, keyArb, fc.boolean()).filter(([a, b]) => a !== b).map(([a, b, g]) => new CopyCmd(a, b, g)),
  fc.uniqueArray(keyArb, { maxLength: 3 }).map((keys) => new DeleteCmd(keys)),
  fc.constantFrom(...PREFIXES).map((p) => new ListCmd(p)),
  fc.constantFrom(...DIR_PREFIXES).map((p) => new ListDirCmd(p)),
];

export interface ModelTestOptions {
  numRuns: number;
  maxCommands: number;
  timeoutMs?: number;
}

/** Defines one `it` running the model test against fresh storages from `factory`. */
export function defineModelTest(name: string, factory: StorageFactory, options: ModelTestOptions): void {
  it(`agrees with a Map model on random command sequences: ${name}`, async () => {
    await fc.assert(
      fc.asyncProperty(fc.commands(commandArbs, { maxCommands: options.maxCommands }), async (cmds) => {
        const handle = await factory();
        try {
          await fc.asyncModelRun(() => ({ model: { objects: new Map(), seenVersions: [] }, real: handle.storage }), cmds);
        } finally {
          await handle.storage.close();
          await handle.cleanup?.();
        }
      }),
      { numRuns: options.numRuns },
    );
  }, options.timeoutMs ?? 120_000);
}
