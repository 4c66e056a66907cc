// Vitest globalSetup: starts a one-node Ceph RADOS gateway on 127.0.0.1 (scripts/ceph-s3.sh) for
// the S3 storage tests and stops it, by pid, after the run. Gives the tests `inject('s3')`.
// When Ceph is not installed or does not start, the S3 suite fails in CI and is skipped, with the
// reason on one line, elsewhere (test/storage/s3-gate.ts). Where the S3 suite is required (CI=true
// or FLOE_REQUIRE_S3=1) a missing Ceph is installed by the start script; elsewhere it is not.
// The start script's whole output on failure goes to a log file the one-line reason names.
// FLOE_S3_ENDPOINT (+ FLOE_S3_ACCESS_KEY / FLOE_S3_SECRET_KEY) points the tests at a running
// gateway instead. A run whose file filters cannot select the S3 tests does not start Ceph.
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { TestProject } from 'vitest/node';

export type S3Target =
  | { endpoint: string; accessKeyId: string; secretAccessKey: string; startSeconds: number | null }
  | { unavailable: string };

declare module 'vitest' {
  export interface ProvidedContext {
    s3: S3Target;
  }
}

const run = promisify(execFile);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const S3_TEST_FILE = 'test/storage/s3.test.ts';
const INSTALL_HINT = 'install it with `bash scripts/install-ceph.sh` (apt-get install -y --no-install-recommends ceph-mon ceph-osd radosgw)';
const START_TIMEOUT_MS = 240_000;

/**
 * The one-line reason for a failed start: the script's last line on stderr (it ends with what
 * failed), cut to 200 characters, plus the path of `logFile`, which gets the whole output.
 */
export function startFailureReason(err: unknown, logFile: string): string {
  const e = err as { stderr?: string; stdout?: string; killed?: boolean; signal?: string; message?: string };
  const stderr = String(e.stderr ?? '');
  writeFileSync(logFile, `${e.message ?? String(err)}\n--- stderr ---\n${stderr}\n--- stdout ---\n${String(e.stdout ?? '')}\n`);
  const lines = stderr.split('\n').map((l) => l.trim()).filter(Boolean);
  const last = e.killed ? `killed after ${START_TIMEOUT_MS / 1000} s (${e.signal ?? 'timeout'})` : (lines.at(-1) ?? (e.message ?? String(err)).split('\n')[0]!);
  const line = last.length > 200 ? `${last.slice(0, 197)}...` : last;
  return `the Ceph gateway did not start (scripts/ceph-s3.sh start): ${line} [full output: ${logFile}]`;
}

/** True unless the command line names test-file filters none of which can match the S3 test file. */
function s3TestsSelected(): boolean {
  const args = process.argv.slice(2);
  const runIndex = args.findIndex((a) => a === 'run' || a === 'watch' || a === 'dev');
  const filters = args.slice(runIndex + 1).filter((a, i, all) => !a.startsWith('-') && !(all[i - 1] ?? '').match(/^--(project|config|root|dir|reporter|maxWorkers|pool|shard|testTimeout|t|testNamePattern)$/));
  if (runIndex === -1 || filters.length === 0) return true;
  return filters.some((f) => S3_TEST_FILE.includes(f.replace(/^\.\//, '')) || f.includes('s3'));
}

async function commandExists(name: string): Promise<boolean> {
  try {
    await run('sh', ['-c', `command -v ${name}`]);
    return true;
  } catch {
    return false;
  }
}

export default async function setup(project: TestProject): Promise<(() => Promise<void>) | undefined> {
  const external = process.env.FLOE_S3_ENDPOINT;
  if (external) {
    project.provide('s3', {
      endpoint: external,
      accessKeyId: process.env.FLOE_S3_ACCESS_KEY ?? 'floetest',
      secretAccessKey: process.env.FLOE_S3_SECRET_KEY ?? 'floetestsecret',
      startSeconds: null,
    });
    return undefined;
  }
  if (!s3TestsSelected()) {
    project.provide('s3', { unavailable: 'Ceph was not started: the file filters of this run exclude the S3 tests' });
    return undefined;
  }
  const required = process.env.CI === 'true' || process.env.FLOE_REQUIRE_S3 === '1';
  for (const tool of ['ceph-mon', 'ceph-osd', 'radosgw']) {
    if (!required && !(await commandExists(tool))) {
      project.provide('s3', { unavailable: `Ceph is not installed (${tool} not found): ${INSTALL_HINT}` });
      return undefined;
    }
  }
  const started = performance.now();
  let stdout: string;
  try {
    ({ stdout } = await run('bash', [path.join(root, 'scripts/ceph-s3.sh'), 'start'], { timeout: START_TIMEOUT_MS, killSignal: 'SIGKILL' }));
  } catch (err) {
    const logFile = path.join(tmpdir(), `floe-ceph-start-${new Date().toISOString().replace(/[:.]/g, '-')}-${process.pid}.log`);
    project.provide('s3', { unavailable: startFailureReason(err, logFile) });
    return undefined;
  }
  const env = Object.fromEntries(stdout.trim().split('\n').map((line) => line.split('=', 2) as [string, string]));
  const startSeconds = Math.round((performance.now() - started) / 100) / 10;
  console.log(`[ceph] RADOS gateway ready at ${env.FLOE_S3_ENDPOINT} in ${startSeconds}s`);
  project.provide('s3', {
    endpoint: env.FLOE_S3_ENDPOINT ?? '',
    accessKeyId: env.FLOE_S3_ACCESS_KEY ?? '',
    secretAccessKey: env.FLOE_S3_SECRET_KEY ?? '',
    startSeconds,
  });
  return async () => {
    await run('bash', [path.join(root, 'scripts/ceph-s3.sh'), 'stop', env.FLOE_CEPH_DIR ?? ''], { timeout: 60_000 });
  };
}
