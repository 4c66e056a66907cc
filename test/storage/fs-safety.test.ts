// Filesystem-only behaviour: the root cannot be escaped, temp and lock files stay invisible,
// abandoned locks are broken, live ones time out.
import { existsSync, mkdirSync, readdirSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { FsStorage } from '../../src/engine/storage/fs.ts';
import { FsStorage as Fs } from '../../src/engine/storage/fs.ts';
import { FakeClock } from '../../src/testing/fake-clock.ts';
import { makeFsStorage } from './backends.ts';
import { collect, expectCode } from './contract.ts';

const enc = (s: string) => new TextEncoder().encode(s);

describe('fs backend safety', () => {
  let s: FsStorage;
  let cleanup: () => Promise<void>;
  beforeEach(() => {
    ({ storage: s, cleanup } = makeFsStorage());
  });
  afterEach(() => cleanup());

  it('writes only inside the root and refuses reserved names', async () => {
    await s.put('a/b', enc('x'));
    expect(existsSync(path.join(s.root, 'a', 'b'))).toBe(true);
    await expectCode(s.put('.floe-lock.a', enc('x')), 'INVALID_KEY');
    await expectCode(s.put('a/.floe-tmp-1', enc('x')), 'INVALID_KEY');
    expect(readdirSync(path.join(s.root, 'a'))).toEqual(['b']); // no temp or lock file left
  });

  it('ignores temp files, lock files and symlinks when listing and reading', async () => {
    await s.put('d/real', enc('x'));
    writeFileSync(path.join(s.root, 'd', '.floe-tmp-deadbeef'), 'partial');
    writeFileSync(path.join(s.root, 'd', '.floe-lock.real'), '{}');
    symlinkSync('/etc/hostname', path.join(s.root, 'd', 'link'));
    expect((await collect(s.list(''))).map((o) => o.key)).toEqual(['d/real']);
    await expectCode(s.get('d/link'), 'INVALID_KEY'); // a link is never followed (issue 17), nor taken for a missing object
    await s.delete(['d/link']);
    expect(existsSync('/etc/hostname')).toBe(true);
  });

  it('breaks a lock whose holder process is gone', async () => {
    await s.put('k', enc('1'));
    // pid 2^22+1 is above Linux's pid_max default: no such process.
    writeFileSync(path.join(s.root, '.floe-lock.k'), JSON.stringify({ pid: 4_194_305, host: hostname(), nonce: 'dead' }));
    const started = Date.now();
    await s.put('k', enc('2'));
    expect(Date.now() - started).toBeLessThan(2000);
    expect(new TextDecoder().decode((await s.get('k'))!.bytes)).toBe('2');
  });

  it('times out on a live lock instead of waiting forever, after timeoutMs of its clock', async () => {
    // The clock moves through each poll's sleep at once: ten seconds of waiting, none of it real.
    const clock = new FakeClock({ startMs: Date.now() });
    const started = clock.nowMs();
    const waiting = new Fs({ root: s.root, lock: { timeoutMs: 10_000 }, clock });
    await waiting.put('k', enc('1'));
    writeFileSync(path.join(s.root, '.floe-lock.k'), JSON.stringify({ pid: process.pid, host: hostname(), nonce: 'live' }));
    await expectCode(waiting.put('k', enc('2')), 'TIMEOUT');
    expect(clock.nowMs() - started).toBeGreaterThan(10_000);
    expect(clock.nowMs() - started).toBeLessThan(10_100); // it stopped at the deadline, not later
    expect(clock.sleeps.length).toBeGreaterThan(100); // polls back off to at most 75 ms
    expect(new TextDecoder().decode((await waiting.get('k'))!.bytes)).toBe('1');
  });

  it('breaks a live-looking lock once it is older than staleMs on its clock', async () => {
    await s.put('k', enc('1'));
    writeFileSync(path.join(s.root, '.floe-lock.k'), JSON.stringify({ pid: process.pid, host: hostname(), nonce: 'hung' }));
    // Its owner (this process) is alive, so only age can free it: 29 s is not old enough...
    const young = new FakeClock({ startMs: Date.now() + 29_000 });
    await expectCode(new Fs({ root: s.root, lock: { timeoutMs: 500 }, clock: young }).put('k', enc('2')), 'TIMEOUT');
    // ...31 s is, and the write goes through without a single wait.
    const old = new FakeClock({ startMs: Date.now() + 31_000 });
    await new Fs({ root: s.root, clock: old }).put('k', enc('3'));
    expect(old.sleeps).toEqual([]);
    expect(new TextDecoder().decode((await s.get('k'))!.bytes)).toBe('3');
    expect(readdirSync(s.root).filter((n) => n.startsWith('.floe-'))).toEqual([]);
  });

  it('sweeps temp files left by crashed writers, judging their age on its clock', async () => {
    mkdirSync(path.join(s.root, 'y'), { recursive: true });
    writeFileSync(path.join(s.root, 'y', '.floe-tmp-89ab'), 'left over');
    expect(await s.sweepTempFiles()).toBe(0); // written just now
    const later = new Fs({ root: s.root, clock: new FakeClock({ startMs: Date.now() + 3_600_000 + 60_000 }) });
    expect(await later.sweepTempFiles()).toBe(1);
    expect(readdirSync(path.join(s.root, 'y'))).toEqual([]);
  });

  it('sweeps temp files left by crashed writers', async () => {
    mkdirSync(path.join(s.root, 'x'), { recursive: true });
    const old = path.join(s.root, 'x', '.floe-tmp-0123');
    writeFileSync(old, 'left over');
    writeFileSync(path.join(s.root, 'x', '.floe-tmp-4567'), 'in flight');
    utimesSync(old, new Date(Date.now() - 7_200_000), new Date(Date.now() - 7_200_000));
    expect(await s.sweepTempFiles()).toBe(1);
    expect(readdirSync(path.join(s.root, 'x'))).toEqual(['.floe-tmp-4567']);
  });
});
