// Vitest globalSetup: the run gets a temp directory of its own, and any `floe-*` entry a test
// leaves there fails the run.
//
// Design: the check cannot watch os.tmpdir() itself, because other test runs on the same machine
// create and remove `floe-*` entries there concurrently; a before/after diff of a shared /tmp would
// blame this run for them. So setup makes a fresh `floe-test-run-*` directory and points TMPDIR at
// it. os.tmpdir() reads TMPDIR on every call, and vitest forks its workers (and tests spawn the
// CLI, workers and race children) after this setup, inheriting the environment, so every temp
// entry the run makes lands inside it. At teardown: any `floe-*` entry left there is a leak, listed
// and failed; the directory is removed either way, so a run leaves nothing in the real temp dir.
//
// The checkout is watched too: a name the run adds at its top level (a test that made a repository
// at a relative path) is listed and fails the run. It is not removed: it is in the working tree.
//
// Registered after test/setup/ceph.ts on purpose: Ceph's own directory and its start-failure log
// (which the skip message names, so it must outlive the run) stay in the machine's temp dir. And
// teardown does not throw: vitest only logs a teardown error ("error during close") and still exits
// 0, and a throw would skip the teardowns after this one (Ceph's stop). It sets process.exitCode.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** The `floe-*` entries of `dir`, sorted. */
export function floeEntries(dir: string): string[] {
  return readdirSync(dir).filter((name) => name.startsWith('floe-')).sort();
}

export default function setup(): () => void {
  const checkout = process.cwd();
  const checkoutBefore = new Set(readdirSync(checkout));
  const previous = process.env.TMPDIR;
  const runDir = mkdtempSync(path.join(tmpdir(), 'floe-test-run-'));
  process.env.TMPDIR = runDir;
  return () => {
    if (previous === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = previous;
    const leaked = floeEntries(runDir);
    rmSync(runDir, { recursive: true, force: true });
    if (leaked.length > 0) {
      console.error(`[temp-dir-check] tests left ${leaked.length} temp entr${leaked.length === 1 ? 'y' : 'ies'} behind (removed now; make each test remove what it makes):\n  ${leaked.join('\n  ')}`);
      process.exitCode = 1;
    }
    const added = readdirSync(checkout).filter((name) => !checkoutBefore.has(name)).sort();
    if (added.length > 0) {
      console.error(`[temp-dir-check] tests added ${added.length} entr${added.length === 1 ? 'y' : 'ies'} to the checkout ${checkout} (left there; make tests write in their temp dirs):\n  ${added.join('\n  ')}`);
      process.exitCode = 1;
    }
  };
}
