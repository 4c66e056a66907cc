// Ctrl-C: the CLI's signal (io.signal, wired to SIGINT/SIGTERM) reaches every operation a command
// makes. An interrupted command exits 130 with one ABORTED line and leaves the repository as it
// was; `floe demo` interrupted midway leaves a repository the read commands still open.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { floe, removeTempDirs, ROOT, sampleRepository, tempDir } from './helpers.ts';

afterAll(removeTempDirs);

const interrupted = () => {
  const controller = new AbortController();
  controller.abort(new Error('interrupted (SIGINT)'));
  return controller.signal;
};

describe('an interrupted command', () => {
  let dir: string;
  let repoPath: string;
  beforeAll(async () => {
    dir = tempDir();
    ({ repoPath } = await sampleRepository(dir));
  });

  it.each([
    ['cat', ['cat', 'main:/weather/temperature[0]']],
    ['ls', ['ls']],
    ['log', ['log']],
    ['query', ['query', '.from("/weather/temperature").whereIndex("time", 0, 2)']],
    ['branch create', ['branch', 'create', 'never']],
    ['tag create', ['tag', 'create', 'never']],
    ['gc', ['gc', '--older-than', '0', '--force']],
  ])('%s exits 130 with one ABORTED line and changes nothing', async (_name, argv) => {
    const result = await floe([...argv, '--repo', repoPath], { cwd: dir, signal: interrupted() });
    expect(result.code).toBe(130);
    expect(result.stderr).toMatch(/^floe [a-z]+: ABORTED: .*interrupted \(SIGINT\)/);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect((await floe(['branch', '--repo', repoPath, '--json'], { cwd: dir })).stdout).not.toContain('never');
    expect((await floe(['tag', '--repo', repoPath, '--json'], { cwd: dir })).stdout).not.toContain('never');
  });
});

describe('SIGINT to the real binary', () => {
  it('stops `floe demo` midway with exit code 130; the repository still reads', async () => {
    const dir = tempDir();
    const repo = path.join(dir, 'demo.icechunk');
    const child = spawn(process.execPath, [path.join(ROOT, 'bin/floe.mjs'), 'demo', '--repo', repo], { cwd: dir, env: { ...process.env, FORCE_COLOR: '0' } });
    let stdout = '';
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const killer = setTimeout(() => child.kill('SIGKILL'), 120_000);
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    // Interrupt once the layout is committed: the concurrent writers are then at work.
    await new Promise<void>((resolve) => {
      child.stdout.on('data', (d: Buffer) => {
        stdout += d.toString();
        if (stdout.includes('committed the layout')) resolve();
      });
      void exited.then(() => resolve());
    });
    child.kill('SIGINT');
    const code = await exited;
    clearTimeout(killer);
    expect(stdout).not.toContain('done:'); // it did not run to the end
    expect(code).toBe(130);
    expect(stderr).toMatch(/floe demo: ABORTED: .*interrupted \(SIGINT\)/);
    const log = await floe(['log', '--repo', repo, '--json'], { cwd: dir });
    expect(log.code).toBe(0);
    expect(JSON.parse(log.stdout)[0].message).toMatch(/^(layout|days )/);
    expect((await floe(['ls', '--repo', repo], { cwd: dir })).code).toBe(0);
  }, 150_000);
});
