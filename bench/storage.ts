// Storage micro-benchmark: put/get/ranged-get rates of the local backends, and the fs read path
// (positioned readSync into a right-sized buffer) against fs.promises.readFile.
// Run: npx tsx bench/storage.ts [--objects 500] (bench:quick puts fewer: fs and sqlite puts wait on the disk)
import { mkdtempSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { FsStorage } from '../src/engine/storage/fs.ts';
import { MemoryStorage } from '../src/engine/storage/memory.ts';
import { SqliteStorage } from '../src/engine/storage/sqlite.ts';
import type { ObjectStorage } from '../src/engine/storage/types.ts';

const { values: opts } = parseArgs({ options: { objects: { type: 'string', default: '500' } } });
const OBJECTS = Number(opts.objects);
if (!(Number.isInteger(OBJECTS) && OBJECTS >= 1)) throw new Error('--objects must be a positive integer');
const SIZE = 64 * 1024;

async function timed(label: string, count: number, fn: () => Promise<void>): Promise<void> {
  const start = performance.now();
  await fn();
  const ms = performance.now() - start;
  console.log(`${label.padEnd(34)} ${(count / (ms / 1000)).toFixed(0).padStart(8)} ops/s  (${ms.toFixed(0)} ms)`);
}

async function bench(name: string, storage: ObjectStorage): Promise<void> {
  const body = new Uint8Array(SIZE).map((_, i) => i & 0xff);
  const keys = Array.from({ length: OBJECTS }, (_, i) => `c/${i}`);
  await timed(`${name} put ${SIZE / 1024} KiB`, OBJECTS, async () => {
    for (const k of keys) await storage.put(k, body);
  });
  await timed(`${name} get ${SIZE / 1024} KiB`, OBJECTS, async () => {
    for (const k of keys) await storage.get(k);
  });
  await timed(`${name} ranged get 4 KiB`, OBJECTS, async () => {
    for (const k of keys) await storage.get(k, { offset: 1000, length: 4096 });
  });
}

const dir = mkdtempSync(path.join(tmpdir(), 'floe-bench-'));
try {
  await bench('memory', new MemoryStorage());
  const fs = new FsStorage({ root: path.join(dir, 'fs') });
  await bench('fs', fs);
  await timed('fs  get via fs.promises.readFile', OBJECTS, async () => {
    for (let i = 0; i < OBJECTS; i++) await readFile(path.join(fs.root, 'c', String(i)));
  });
  const sqlite = new SqliteStorage({ file: path.join(dir, 'bench.sqlite') });
  await bench('sqlite', sqlite);
  await sqlite.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
