// Every local backend stamps `lastModified` from the clock in its options (GC's grace period
// compares those stamps with a cutoff taken from the repository's clock), on plain writes,
// replacements and copies alike.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Clock } from '../../src/engine/storage/clock.ts';
import { FsStorage } from '../../src/engine/storage/fs.ts';
import { MemoryStorage } from '../../src/engine/storage/memory.ts';
import { SqliteStorage } from '../../src/engine/storage/sqlite.ts';
import type { ObjectStorage } from '../../src/engine/storage/types.ts';
import { FakeClock } from '../../src/testing/fake-clock.ts';

const enc = (s: string) => new TextEncoder().encode(s);
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
function scratch(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'floe-clock-'));
  dirs.push(dir);
  return dir;
}

const BACKENDS: [string, (clock: Clock) => ObjectStorage][] = [
  ['memory', (clock) => new MemoryStorage({ clock })],
  ['fs', (clock) => new FsStorage({ root: scratch(), durable: false, clock })],
  ['sqlite', (clock) => new SqliteStorage({ file: path.join(scratch(), 'db.sqlite'), durable: false, clock })],
];

describe.each(BACKENDS)('%s storage', (_name, make) => {
  it('takes lastModified from its clock', async () => {
    // Years away from real time, so a stamp from Date.now() could not pass by accident.
    const clock = new FakeClock({ startMs: Date.UTC(2031, 5, 1) });
    const storage = make(clock);
    try {
      const first = clock.nowMs();
      await storage.put('a', enc('1'), { ifNoneMatch: '*' });
      clock.advance(90_000);
      await storage.put('b', enc('2'));
      clock.advance(90_000);
      await storage.put('b', enc('3')); // a replacement
      clock.advance(90_000);
      await storage.copy('a', 'c');
      const stamps = Object.fromEntries(await Promise.all(['a', 'b', 'c'].map(async (k) => [k, (await storage.head(k))?.lastModified.getTime()])));
      expect(stamps).toEqual({ a: first, b: first + 180_000, c: first + 270_000 });
      const listed = [];
      for await (const o of storage.list('')) listed.push([o.key, o.lastModified.getTime()]);
      expect(Object.fromEntries(listed)).toEqual(stamps);
    } finally {
      await storage.close();
    }
  });
});
