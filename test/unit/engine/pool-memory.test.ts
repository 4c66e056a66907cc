// A result the decode pool's workers filled is freed once the caller drops it. V8 does not count
// shared memory toward its collections (src/platform/heap-collector.ts), so before, an idle worker
// kept a wrapper of every result's SharedArrayBuffer alive, and so did a main thread that
// allocated little else: each pooled read left its whole result resident (a process reading
// 1 GiB at a time grew by 1 GiB a read until the machine ran out of memory). Now workers collect
// when a new result arrives and when idle, and the process collects after `sharedResultSlackBytes`
// of shared results. Each case runs in a child under the RSS watchdog.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createArray, openStore } from '../../../src/index.ts';
import { runWithRssWatchdog } from '../../support/rss-watchdog.ts';

const MiB = 2 ** 20;
const ROOT = path.resolve(import.meta.dirname, '../../..');
const CHILD = path.join(ROOT, 'test/unit/engine/pool-memory-child.ts');
const RESULT_MIB = 128;
const dir = mkdtempSync(path.join(tmpdir(), 'floe-pool-memory-'));

beforeAll(async () => {
  const n = (RESULT_MIB * MiB) / 4;
  const array = await createArray(openStore(dir), '/a', { shape: [n], chunkShape: [MiB], dataType: 'float32', fillValue: 0 });
  await array.set(undefined, Float32Array.from({ length: n }, (_, i) => i % 1000));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function readInChild(args: string[], maxRssBytes: number): Promise<{ rss: number[]; chunksSent: number }> {
  // V8's memory reducer would free an idle process's dropped buffers after a second or so even if
  // Floe never collected: off, so the test sees Floe's own release.
  const execArgv = ['--no-memory-reducer', '--import', 'tsx'];
  const result = await runWithRssWatchdog(CHILD, [dir, ...args], { maxRssBytes, timeoutMs: 90_000, cwd: ROOT, execArgv });
  expect(result.killed, `killed at ${Math.round(result.peakRssBytes / MiB)} MiB: ${result.stderr}`).toBe(false);
  expect(result.exitCode, result.stderr).toBe(0);
  const report = JSON.parse(result.stdout.trim().split('\n').at(-1) ?? '{}') as { rss: number[]; chunksSent: number };
  const reads = report.rss.length - 2;
  expect(report.chunksSent).toBeGreaterThan(reads); // the reads went through the workers
  return report;
}

const shown = (rss: number[]) => `RSS before the reads, then after each: ${rss.map((b) => Math.round(b / MiB)).join(', ')} MiB`;

it(`keeps RSS flat over 6 pooled reads of ${RESULT_MIB} MiB dropped between idle pauses (the workers release)`, async () => {
  const { rss } = await readInChild(['idle', '6'], 1024 * MiB);
  // Retained results would add 5 x 128 MiB = 640 MiB by the last read; each pause waits (up to
  // 4 s) for the memory to come back, so one result's worth is the bound.
  expect(Math.max(...rss.slice(1, -1)) - rss[0]!, shown(rss)).toBeLessThan(RESULT_MIB * MiB);
}, 120_000);

it(`bounds RSS over 24 back-to-back pooled reads of ${RESULT_MIB} MiB by the shared-result slack (the process collects)`, async () => {
  const slack = 256 * MiB;
  // Retained results would add 23 x 128 MiB = 2.9 GiB, past the watchdog's 2 GiB.
  const { rss } = await readInChild(['busy', '24', String(slack)], 2048 * MiB);
  // With collections: the slack, the read in progress and the workers' last ones, plus what V8's
  // background freeing has not reached yet on a loaded machine (seen: up to 8 results in CI).
  expect(Math.max(...rss), shown(rss)).toBeLessThan(rss[0]! + 1536 * MiB);
  expect(rss.at(-1)! - rss[0]!, shown(rss)).toBeLessThan(slack + 3 * RESULT_MIB * MiB);
}, 120_000);
