// The Ceph test gateway's plumbing, without starting Ceph: `scripts/ceph-s3.sh start` installs
// Ceph when its binaries are missing, and a failed start is reported on one line that names a
// log file holding the whole output.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { startFailureReason } from '../setup/ceph.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const scratch = mkdtempSync(path.join(tmpdir(), 'floe-ceph-setup-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Runs a copy of ceph-s3.sh beside a stub install-ceph.sh, with a PATH that holds no Ceph. */
function startWithoutCeph(name: string, stub: string) {
  const dir = path.join(scratch, name);
  const bin = path.join(dir, 'bin');
  mkdirSync(bin, { recursive: true });
  copyFileSync(path.join(root, 'scripts/ceph-s3.sh'), path.join(dir, 'ceph-s3.sh'));
  writeFileSync(path.join(dir, 'install-ceph.sh'), stub);
  for (const tool of ['bash', 'dirname']) {
    const found = spawnSync('sh', ['-c', `command -v ${tool}`], { encoding: 'utf8' }).stdout.trim();
    symlinkSync(found, path.join(bin, tool));
  }
  const marker = path.join(dir, 'installer-ran');
  const result = spawnSync(path.join(bin, 'bash'), [path.join(dir, 'ceph-s3.sh'), 'start'], {
    env: { PATH: bin, MARKER: marker }, encoding: 'utf8', timeout: 20_000,
  });
  const lines = result.stderr.trim().split('\n');
  return { status: result.status, stdout: result.stdout, lastLine: lines.at(-1) ?? '', installerRan: existsSync(marker) };
}

describe('scripts/ceph-s3.sh start', () => {
  it('runs install-ceph.sh when the Ceph binaries are missing, and stops when that fails', () => {
    const r = startWithoutCeph('failing-installer', 'echo ran > "$MARKER"; exit 3\n');
    expect(r.installerRan).toBe(true);
    expect(r.status).toBe(1);
    expect(r.stdout).toBe(''); // nothing a caller could mistake for FLOE_S3_ENDPOINT=...
    expect(r.lastLine).toMatch(/^ceph-s3: installing Ceph failed/);
  });

  it('stops with the missing tool named when the installer installed nothing', () => {
    const r = startWithoutCeph('useless-installer', 'echo ran > "$MARKER"; echo "installer chatter"\n');
    expect(r.installerRan).toBe(true);
    expect(r.status).toBe(1);
    expect(r.stdout).toBe(''); // the installer's output went to stderr
    expect(r.lastLine).toBe('ceph-s3: ceph-mon not found after scripts/install-ceph.sh');
  });
});

describe('the skip reason of a failed gateway start', () => {
  const stderr = [
    ...Array.from({ length: 60 }, (_, i) => `2026-01-01T00:00:${String(i).padStart(2, '0')} osd.0 ${'noise '.repeat(8)}`),
    'ceph-s3: stopped and removed /tmp/floe-ceph.x',
    'ceph-s3: FAILED waiting for the OSD (not ready after 90s) (ceph-s3.sh line 150; daemon logs: /tmp/floe-ceph.x-logs)',
    '',
  ].join('\n');

  it('is one line: the last thing the script said, and the log file with everything', () => {
    const logFile = path.join(scratch, 'start.log');
    const reason = startFailureReason(Object.assign(new Error('Command failed: bash ceph-s3.sh start\nmore'), { stderr, stdout: '' }), logFile);
    expect(reason).not.toContain('\n');
    expect(reason.length).toBeLessThan(400);
    expect(reason).toContain('FAILED waiting for the OSD (not ready after 90s)');
    expect(reason).toContain(`[full output: ${logFile}]`);
    expect(readFileSync(logFile, 'utf8')).toContain(stderr.trim());
  });

  it('says when the start was killed, and cuts a very long line', () => {
    const logFile = path.join(scratch, 'killed.log');
    expect(startFailureReason(Object.assign(new Error('x'), { stderr, killed: true, signal: 'SIGKILL' }), logFile)).toMatch(/: killed after 240 s \(SIGKILL\) \[full output: /);
    const long = startFailureReason(Object.assign(new Error('x'), { stderr: `${'y'.repeat(5000)}\n` }), logFile);
    expect(long).not.toContain('\n');
    expect(long.length).toBeLessThan(400);
  });
});
