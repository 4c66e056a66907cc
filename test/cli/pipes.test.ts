// `floe` writing into pipes, as in `floe cat … | wc -c` and `floe log | head`: every byte arrives
// even when the reader is slower than the command (a pipe holds 64 KiB; the rest waits in the
// process), and a reader that leaves early ends the command quietly.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ZarrArray } from '../../src/engine/array.ts';
import { Repository, Storage } from '../../src/txn/index.ts';
import { removeTempDirs, ROOT, tempDir } from './helpers.ts';

const ROWS = 400;
const COLS = 500;
let repoPath: string;

beforeAll(async () => {
  repoPath = path.join(tempDir(), 'big.icechunk');
  const repo = await Repository.create(Storage.newLocalFilesystem(repoPath));
  const session = await repo.writableSession('main');
  const array = await ZarrArray.create(session.store, '/field', { shape: [ROWS, COLS], chunkShape: [100, 100], dataType: 'float64', fillValue: 0 });
  await array.set([null, null], Float64Array.from({ length: ROWS * COLS }, (_, i) => i + 0.25));
  await session.commit('a field whose JSON is several MiB');
});
afterAll(removeTempDirs);

interface Finished { code: number | null; signal: NodeJS.Signals | null; stdout: Buffer; stderr: string }

/** Spawns floe; its stdout is read only after `holdMs`, so the pipe is full before the command ends. */
function floeIntoPipe(argv: string[], options: { holdMs: number; takeBytes?: number }): Promise<Finished> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(ROOT, 'bin/floe.mjs'), ...argv, '--repo', repoPath], { stdio: ['ignore', 'pipe', 'pipe'] });
    const parts: Buffer[] = [];
    let stderr = '';
    let taken = 0;
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.stdout.pause();
    setTimeout(() => {
      child.stdout.on('data', (d: Buffer) => {
        parts.push(d);
        taken += d.length;
        // Like `head -c N`: take what we want, then close our end of the pipe.
        if (options.takeBytes !== undefined && taken >= options.takeBytes) child.stdout.destroy();
      });
      child.stdout.resume();
    }, options.holdMs);
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout: Buffer.concat(parts), stderr });
    });
  });
}

describe('floe output through a pipe', () => {
  it('delivers all of a multi-MiB output to a slow reader, then exits 0', async () => {
    const result = await floeIntoPipe(['cat', 'main:/field', '--json'], { holdMs: 1500 });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout.length).toBeGreaterThan(1 << 20);
    const parsed = JSON.parse(result.stdout.toString()) as { shape: number[]; data: number[] };
    expect(parsed.shape).toEqual([ROWS, COLS]);
    expect(parsed.data).toHaveLength(ROWS * COLS);
    expect(parsed.data.every((v, i) => v === i + 0.25)).toBe(true);
  });

  it('ends quietly, exit 0 and no stack trace, when the reader closes the pipe early', async () => {
    const result = await floeIntoPipe(['cat', 'main:/field', '--json'], { holdMs: 500, takeBytes: 100 });
    expect(result.stderr).toBe('');
    expect(result.signal).toBeNull();
    expect(result.code).toBe(0);
    expect(result.stdout.length).toBeGreaterThanOrEqual(100);
  });
});
