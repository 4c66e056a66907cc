// `floe` as a user runs it: `node bin/floe.mjs` in a fresh directory, the demo end to end
// (small grid; the full one is measured by hand, see docs/cli.md), then the commands it suggests.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { removeTempDirs, spawnFloe, tempDir } from './helpers.ts';

afterAll(removeTempDirs);

describe('the floe binary', () => {
  it('runs the demo end to end, then log, ls, cat and plot on what it wrote', async () => {
    const dir = tempDir();
    const demo = await spawnFloe(['demo', '--small'], dir);
    expect(demo.stderr).toMatch(/writing: .* in [\d.]+ s/); // non-TTY progress lines
    expect(demo.code).toBe(0);
    for (const step of ['created a repository', '5 writers committed concurrently', 'rebases', 'tagged', 'all equal to what was written', 'branch "qc"', 'binary-search', 'requests', 'done:']) {
      expect(demo.stdout).toContain(step);
    }
    expect(existsSync(path.join(dir, 'floe-demo.icechunk'))).toBe(true);
    const log = await spawnFloe(['log', 'v1.0', '--json'], dir);
    expect((JSON.parse(log.stdout) as unknown[]).length).toBe(7); // initial, layout, 5 writers
    const cat = await spawnFloe(['cat', 'v1.0:/climate/temperature[0, :2, :3]'], dir);
    expect(cat.stdout).toMatch(/^\[\[\d{3}\.\d\d \d{3}\.\d\d \d{3}\.\d\d\]\n \[\d{3}\.\d\d \d{3}\.\d\d \d{3}\.\d\d\]\]\n$/);
    const qc = await spawnFloe(['cat', 'qc:/climate/temperature[17, 0, :2]'], dir);
    expect(qc.stdout).toBe('[nan nan]\n');
    expect((await spawnFloe(['plot', 'v1.0:/climate/temperature[100]', '-o', 'day100.png'], dir)).code).toBe(0);
    expect(existsSync(path.join(dir, 'day100.png'))).toBe(true);
    // A second run replaces the demo's own repository.
    expect((await spawnFloe(['demo', '--small'], dir)).code).toBe(0);
  }, 120_000);

  it('refuses to replace a repository the demo did not create', async () => {
    const dir = tempDir();
    expect((await spawnFloe(['init'], dir)).code).toBe(0);
    const r = await spawnFloe(['demo', '--small'], dir);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('the demo did not create');
  }, 60_000);

  it('prints help and exits 2 on an unknown command', async () => {
    const dir = tempDir();
    const help = await spawnFloe(['--help'], dir);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('usage: floe <command>');
    const bad = await spawnFloe(['nope'], dir);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe('floe: unknown command "nope"; run `floe help` for the list\n');
  }, 60_000);
});
