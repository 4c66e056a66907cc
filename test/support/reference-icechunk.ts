// The reference Icechunk (`@earthmover/icechunk`, WASM build) for tests: `customBackend` now lives
// in floe/testing (src/testing/adapters/icechunk-storage.ts) and is re-exported here; `runReference`
// runs one command in a child process (reference-child.mjs), because the WASM runtime keeps a
// process alive (scripts end with process.exit). See the shared notes (notes/reference-icechunk-in-node.md) beside the project.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { collectChild } from './child-output.ts';

export { customBackend } from '../../src/testing/adapters/icechunk-storage.ts';

const CHILD = path.join(path.dirname(fileURLToPath(import.meta.url)), 'reference-child.mjs');

const childArgs = (command: Record<string, unknown>) => ['--import', 'tsx', '--no-warnings', CHILD, JSON.stringify(command)];

function replyOf<T>(status: number | null, stdout: string, stderr: string): T {
  const line = stdout.trim().split('\n').filter((l) => l.startsWith('{')).pop();
  if (status !== 0 || !line) {
    throw new Error(`reference child failed (status ${status}): ${stderr.slice(-2000)} ${stdout.slice(-500)}`);
  }
  let reply: { ok: boolean; error?: string; value?: T };
  try {
    reply = JSON.parse(line) as typeof reply;
  } catch (err) {
    throw new Error(`reference child's reply is not JSON (${line.length} characters, status ${status}): ${line.slice(-200)} ${stderr.slice(-1000)}`, { cause: err });
  }
  if (!reply.ok) throw new Error(`reference error: ${reply.error}`);
  return reply.value as T;
}

/** Runs one reference command in a child process (the WASM runtime stays out of test workers). */
export function runReference<T = unknown>(command: Record<string, unknown>, timeoutMs = 90_000): T {
  const result = spawnSync(process.execPath, childArgs(command), { encoding: 'utf8', timeout: timeoutMs });
  return replyOf<T>(result.status, result.stdout, result.stderr);
}

/**
 * {@link runReference} without blocking this process's event loop: for a child that talks to a
 * server this process runs (`floe serve` in-process). Killed (SIGKILL, by pid) after `timeoutMs`.
 */
export async function runReferenceAsync<T = unknown>(command: Record<string, unknown>, timeoutMs = 90_000): Promise<T> {
  const { status, stdout, stderr } = await collectChild(process.execPath, childArgs(command), { timeoutMs });
  return replyOf<T>(status, stdout, stderr);
}
