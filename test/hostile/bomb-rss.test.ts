// Issue 17, stage 2: decompression bombs read through the public API, each in a child process
// under an RSS watchdog (test/support/rss-watchdog.ts), so a regression fails here instead of
// exhausting the machine. The case first: a 96 KB zstd chunk in an array whose chunks
// decode to 4 KB drove RSS to 6.2 GB; now it must stay under 100 MB over the child's baseline.
// Every other case is held to 2x what the data may decode to (the chunk's size, or the configured
// limit of a metadata file) + 64 MiB.
// FLOE_HOSTILE_REPORT=1 prints each child's baseline and peak RSS.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as zlib from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { HEADER_SIZE } from '../../src/format/icechunk/header.ts';
import { createArray, FsStorage, openStore, Repository, Storage, type CodecMetadata } from '../../src/index.ts';
import { runWithRssWatchdog } from '../support/rss-watchdog.ts';
import { rleBombFrame } from '../support/zstd.ts';

const MiB = 2 ** 20;
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const CHILD = path.join(root, 'test/hostile/bomb-read-child.ts');
/** The watchdog's bound: far above every allowance below, far below a machine's memory. */
const WATCHDOG_BYTES = 1536 * MiB;
/** 24,000 RLE blocks of 128 KiB in 96,000 bytes: 3 GiB once inflated. */
const BOMB_BLOCKS = 24_000;

const dirs: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'floe-bomb-'));
  dirs.push(dir);
  return dir;
}
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

interface ChildReport {
  readonly code: string;
  readonly baselineBytes: number;
  readonly peakBytes: number;
}

/** Runs the child on one prepared bomb; the watchdog's verdict must be that it ended by itself. */
async function readBomb(kind: 'array' | 'repo', dir: string, limits: Record<string, number> = {}, pool: 'on' | 'off' = 'off', warmUp?: string): Promise<ChildReport & { growth: number }> {
  const result = await runWithRssWatchdog(CHILD, [kind, dir, JSON.stringify(limits), pool, ...(warmUp ? [warmUp] : [])], { maxRssBytes: WATCHDOG_BYTES, timeoutMs: 60_000, cwd: root });
  expect(result.killed, `the watchdog killed the child at ${result.peakRssBytes} bytes: ${result.stderr}`).toBe(false);
  expect(result.exitCode, result.stderr).toBe(0);
  const report = JSON.parse(result.stdout.trim().split('\n').at(-1) ?? '{}') as ChildReport;
  if (process.env["FLOE_HOSTILE_REPORT"]) console.log(`rss ${kind} ${JSON.stringify(limits)} pool=${pool}: baseline ${report.baselineBytes} peak ${report.peakBytes} watchdog-peak ${result.peakRssBytes} growth ${report.peakBytes - report.baselineBytes}`);
  return { ...report, growth: report.peakBytes - report.baselineBytes };
}

const ZSTD: CodecMetadata[] = [{ name: 'bytes', configuration: { endian: 'little' } }, { name: 'zstd', configuration: { level: 1, checksum: false } }];
const GZIP: CodecMetadata[] = [{ name: 'bytes', configuration: { endian: 'little' } }, { name: 'gzip', configuration: { level: 1 } }];

/**
 * A plain Zarr store holding array /a of `shape` float32 whose chunk c/0 is `bomb`, and the same
 * array at /warm holding good data (a warm-up read for the worker pool).
 */
async function arrayWithBomb(bomb: Uint8Array, codecs: CodecMetadata[], shape = 1024, chunk = 1024): Promise<string> {
  const dir = tempDir();
  const store = openStore(dir);
  await createArray(store, '/a', { shape: [shape], chunkShape: [chunk], dataType: 'float32', codecs });
  const warm = await createArray(store, '/warm', { shape: [shape], chunkShape: [chunk], dataType: 'float32', codecs });
  await warm.set(undefined, 1.5);
  mkdirSync(path.join(dir, 'a', 'c'), { recursive: true });
  writeFileSync(path.join(dir, 'a', 'c', '0'), bomb);
  return dir;
}

describe('the 96 KB zstd chunk bomb through the public API', () => {
  it.each([
    ['without a content size (decoded streaming, stopped at 4 KB)', false],
    ['declaring 3 GiB (refused from its header)', true],
  ] as const)('%s stays under 100 MB over baseline', async (_label, contentSize) => {
    const bomb = rleBombFrame(BOMB_BLOCKS, { contentSize });
    expect(bomb.length).toBeLessThan(100_000);
    const report = await readBomb('array', await arrayWithBomb(bomb, ZSTD));
    expect(report.code).toBe('LIMIT_EXCEEDED');
    expect(report.growth).toBeLessThan(100 * MiB);
  }, 90_000);
});

describe('other bombs through the public API', () => {
  // 128 MiB of zeros, ~130 KB gzipped: a chunk of 4 KB, and one of 4 MiB read on the worker pool.
  const gzipBomb = zlib.gzipSync(Buffer.alloc(128 * MiB), { level: 9 });

  it('a gzip chunk stays under 2x its 4 KB chunk + 64 MiB', async () => {
    const report = await readBomb('array', await arrayWithBomb(gzipBomb, GZIP));
    expect(report.code).toBe('LIMIT_EXCEEDED');
    expect(report.growth).toBeLessThan(64 * MiB + 2 * 4096);
  }, 90_000);

  it('a gzip chunk decoded on the worker pool stays under 2x (chunk + result) + 64 MiB', async () => {
    // 16 MiB of float32 in 4 MiB chunks: big enough for the pool; chunk 0 is the bomb.
    const report = await readBomb('array', await arrayWithBomb(gzipBomb, GZIP, 4 * MiB, MiB), {}, 'on', '/warm');
    expect(report.code).toBe('LIMIT_EXCEEDED');
    expect(report.growth).toBeLessThan(64 * MiB + 2 * (4 + 16) * MiB);
  }, 90_000);

  /** A repository with array /a committed, then every file under `prefix` replaced by a bomb. */
  async function repositoryWithBomb(prefix: 'manifests' | 'snapshots'): Promise<string> {
    const dir = tempDir();
    const repo = await Repository.create(Storage.fromObjectStorage(new FsStorage({ root: dir })));
    const session = await repo.writableSession('main');
    const array = await createArray(session.store, '/a', { shape: [1024], chunkShape: [1024], dataType: 'float32', codecs: ZSTD });
    await array.set(undefined, 1.5);
    await session.commit('one chunk');
    for (const name of readdirSync(path.join(dir, prefix))) {
      const file = path.join(dir, prefix, name);
      const header = readFileSync(file).subarray(0, HEADER_SIZE);
      writeFileSync(file, Buffer.concat([header, rleBombFrame(BOMB_BLOCKS, { contentSize: false })]));
    }
    return dir;
  }

  it.each(['manifests', 'snapshots'] as const)('an Icechunk %s file stays under 2x its configured limit + 64 MiB', async (prefix) => {
    const limits = { manifestBytes: 32 * MiB, snapshotBytes: 32 * MiB };
    const report = await readBomb('repo', await repositoryWithBomb(prefix), limits);
    expect(report.code).toBe('LIMIT_EXCEEDED');
    expect(report.growth).toBeLessThan(64 * MiB + 2 * 32 * MiB);
  }, 90_000);
});

describe('the RSS watchdog', () => {
  it('kills a child that passes its bound, by pid, and says so', async () => {
    const dir = tempDir();
    const script = path.join(dir, 'hog.mjs');
    // Touches 64 MiB every few milliseconds, up to 2 GiB: only the watchdog stops it early.
    writeFileSync(script, 'const held = []; for (let i = 0; i < 32; i++) { held.push(Buffer.alloc(64 * 2 ** 20, 1)); await new Promise((r) => setTimeout(r, 5)); } console.log(held.length);');
    const result = await runWithRssWatchdog(script, [], { maxRssBytes: 300 * MiB, execArgv: [], timeoutMs: 30_000 });
    expect(result.killed).toBe('rss');
    expect(result.exitCode).toBeNull();
    expect(result.peakRssBytes).toBeGreaterThan(300 * MiB);
    expect(result.peakRssBytes).toBeLessThan(700 * MiB);
    expect(result.stdout).toBe('');
  }, 60_000);

  it('reports the peak of a child that ends by itself', async () => {
    const dir = tempDir();
    const script = path.join(dir, 'small.mjs');
    writeFileSync(script, 'const b = Buffer.alloc(100 * 2 ** 20, 1); await new Promise((r) => setTimeout(r, 200)); console.log(b.length);');
    const result = await runWithRssWatchdog(script, [], { maxRssBytes: 1024 * MiB, execArgv: [] });
    expect(result).toMatchObject({ killed: false, exitCode: 0 });
    expect(result.stdout.trim()).toBe(String(100 * MiB));
    expect(result.peakRssBytes).toBeGreaterThan(100 * MiB);
  }, 60_000);
});
