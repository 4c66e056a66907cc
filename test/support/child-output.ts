// Runs a child process to its end and collects what it printed; SIGKILLed (by pid) after
// `timeoutMs`, so a hung child cannot hang a test. Shared by the tests that run `floe` and the
// reference Icechunk as processes.
import { spawn, type SpawnOptions } from 'node:child_process';

export interface ChildOutput {
  /** The exit code; null when a signal ended it (the timeout's SIGKILL among them). */
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

export function collectChild(command: string, args: readonly string[], options: SpawnOptions & { timeoutMs: number }): Promise<ChildOutput> {
  const { timeoutMs, ...spawnOptions } = options;
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { ...spawnOptions, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
}
