// Shared by the A/B benches: run one package-probe.mjs task in a fresh process and read its time,
// and the median that every interleaved comparison reports.
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const PROBE = path.join(path.dirname(fileURLToPath(import.meta.url)), 'package-probe.mjs');

/** Milliseconds the probe reports for `task` on Floe loaded from `entry` (node flags first). */
export function probeMs(entry: string, task: string, dir: string, extra: readonly string[] = [], nodeArgs: readonly string[] = []): number {
  const out = execFileSync(process.execPath, [...nodeArgs, '--no-warnings', PROBE, entry, task, dir, ...extra], { encoding: 'utf8', maxBuffer: 1 << 20 });
  const last = out.trim().split('\n').at(-1) ?? '';
  return (JSON.parse(last) as { ms: number }).ms;
}

export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  const upper = s[mid];
  const lower = s[mid - 1];
  if (upper === undefined) throw new Error('median of no values');
  return s.length % 2 || lower === undefined ? upper : (lower + upper) / 2;
}
