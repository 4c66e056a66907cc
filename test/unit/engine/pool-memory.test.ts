// A result the decode pool's workers filled is freed once the caller drops it: each worker
// collects its heap when it goes idle after requests into shared memory (worker-port.ts). Without
// that, an idle worker kept a wrapper of every result's SharedArrayBuffer alive, and each pooled
// read left its whole result resident (a process reading 1 GiB at a time grew by 1 GiB a read
// until the machine ran out of memory). Run in a child under the RSS watchdog.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { createArray, openStore } from '../../../src/index.ts';
import { runWithRssWatchdog } from '../../support/rss-watchdog.ts';

const MiB = 2 ** 20;
const ROOT = path.resolve(import.meta.dirname, '../../..');
const RESULT_MIB = 128;
const READS = 6;
const dir = mkdtempSync(path.join(tmpdir(), 'floe-pool-memory-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it(`keeps RSS flat over ${READS} pooled reads of ${RESULT_MIB} MiB whose results are dropped`, async () => {
  const n = (RESULT_MIB * MiB) / 4;
  const array = await createArray(openStore(dir), '/a', { shape: [n], chunkShape: [MiB], dataType: 'float32', fillValue: 0 });
  await array.set(undefined, Float32Array.from({ length: n }, (_, i) => i % 1000));
  const result = await runWithRssWatchdog(path.join(ROOT, 'test/unit/engine/pool-memory-child.ts'), [dir, String(READS)], {
    maxRssBytes: (RESULT_MIB * READS * MiB) / 2 + 512 * MiB, timeoutMs: 90_000, cwd: ROOT,
  });
  expect(result.killed, result.stderr).toBe(false);
  expect(result.exitCode, result.stderr).toBe(0);
  const report = JSON.parse(result.stdout.trim().split('\n').at(-1) ?? '{}') as { rss: number[]; chunksSent: number };
  expect(report.chunksSent).toBeGreaterThan(READS); // the reads went through the workers
  const growth = report.rss.at(-1)! - report.rss[0]!;
  // Retained results would add (READS - 1) x 128 MiB = 640 MiB; allow one result's worth of noise.
  expect(growth, `RSS after each read: ${report.rss.map((b) => Math.round(b / MiB)).join(', ')} MiB`).toBeLessThan(RESULT_MIB * MiB);
}, 120_000);
