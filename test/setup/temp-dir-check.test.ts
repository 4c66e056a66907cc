// test/setup/temp-dir-check.ts, run here on a nested temp dir: a clean run passes; a leaked
// `floe-*` entry is named and sets a failing exit code; either way nothing is left behind. A name
// added to the checkout (the working directory) is named and fails the run too.
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import setup from './temp-dir-check.ts';

describe('the temp-dir check', () => {
  const outer = tmpdir();
  const savedExitCode = process.exitCode;
  afterEach(() => {
    process.exitCode = savedExitCode;
    vi.restoreAllMocks();
  });

  it('gives the run its own temp dir and removes it, passing when nothing leaked', () => {
    const teardown = setup();
    const runDir = tmpdir();
    expect(path.dirname(runDir)).toBe(outer);
    expect(path.basename(runDir)).toMatch(/^floe-test-run-/);
    mkdirSync(path.join(runDir, 'tsx-0')); // other tools' entries are not checked, only removed
    teardown();
    expect(tmpdir()).toBe(outer);
    expect(readdirSync(outer)).not.toContain(path.basename(runDir));
    expect(process.exitCode).toBe(savedExitCode);
  });

  it('names a leaked floe-* entry and fails the run', () => {
    const error = vi.spyOn(console, 'error').mockImplementation(() => {});
    const teardown = setup();
    const runDir = tmpdir();
    mkdirSync(path.join(runDir, 'floe-cli-leaked'));
    teardown();
    expect(process.exitCode).toBe(1);
    expect(error).toHaveBeenCalledOnce();
    expect(String(error.mock.calls[0]![0])).toContain('floe-cli-leaked');
    expect(readdirSync(outer)).not.toContain(path.basename(runDir));
  });

  it('names a file a test added to the checkout and fails the run', () => {
    const error = vi.spyOn(console, 'error').mockImplementation(() => {});
    const checkout = mkdtempSync(path.join(outer, 'floe-checkout-'));
    writeFileSync(path.join(checkout, 'package.json'), '{}');
    const cwd = vi.spyOn(process, 'cwd').mockReturnValue(checkout);
    try {
      const teardown = setup();
      writeFileSync(path.join(checkout, 'repo'), 'a repository a test made at a relative path');
      teardown();
      expect(process.exitCode).toBe(1);
      expect(error).toHaveBeenCalledOnce();
      expect(String(error.mock.calls[0]![0])).toMatch(/added 1 entry to the checkout[^]*\n {2}repo$/);
    } finally {
      cwd.mockRestore();
      rmSync(checkout, { recursive: true, force: true });
    }
  });
});
