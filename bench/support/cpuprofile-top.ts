// Summarises V8 .cpuprofile files: self time per function (name + file:line), top N.
import { readFileSync } from 'node:fs';
import path from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}
interface Profile {
  startTime: number;
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const sources = new Map<string, string[]>();

/**
 * tsx-transformed code does not keep the source's line numbers, so a named function's line is
 * looked up in the .ts source (its first definition); 0 when not found (anonymous functions).
 */
function sourceLine(file: string, name: string): number {
  if (name === '(anonymous)' || !/^[\w$]+$/.test(name)) return 0;
  let lines = sources.get(file);
  if (!lines) {
    try {
      lines = readFileSync(file, 'utf8').split('\n');
    } catch {
      lines = [];
    }
    sources.set(file, lines);
  }
  const def = new RegExp(`(function\\*?\\s+${name}\\b|^\\s*(async\\s+)?(static\\s+)?(private\\s+)?${name}\\s*[(<]|\\b(const|let)\\s+${name}\\s*=|^\\s*${name}\\s*:)`);
  const i = lines.findIndex((l) => def.test(l));
  return i + 1;
}

export interface HotFunction {
  name: string;
  where: string;
  selfMs: number;
  share: number;
}

/**
 * Self time per function over one or more profiles (e.g. all threads of one run), counting only
 * samples inside `windowUs` (monotonic µs, the clock of process.hrtime and of V8's profiler).
 */
export function topFunctions(files: readonly string[], n = 10, windowUs?: readonly [number, number], root = process.cwd()): { totalMs: number; top: HotFunction[] } {
  const self = new Map<string, { name: string; where: string; us: number }>();
  let total = 0;
  for (const file of files) {
    const p = JSON.parse(readFileSync(file, 'utf8')) as Profile;
    const byId = new Map(p.nodes.map((node) => [node.id, node]));
    let at = p.startTime;
    for (let i = 0; i < p.samples.length; i++) {
      const node = byId.get(p.samples[i]!)!;
      const dt = p.timeDeltas[i] ?? 0;
      at += dt;
      if (windowUs && (at < windowUs[0] || at > windowUs[1])) continue;
      const { functionName, url, lineNumber } = node.callFrame;
      const name = functionName || '(anonymous)';
      if (name === '(idle)') continue;
      const file = url.startsWith('file://') ? new URL(url).pathname : '';
      const rel = file ? path.relative(root, file) : url;
      const line = file.endsWith('.ts') ? sourceLine(file, name) : lineNumber + 1;
      const where = rel ? (line ? `${rel}:${line}` : rel) : '';
      const key = `${name}@${where}`;
      const e = self.get(key) ?? { name, where, us: 0 };
      e.us += dt;
      self.set(key, e);
      total += dt;
    }
  }
  const top = [...self.values()]
    .sort((a, b) => b.us - a.us)
    .slice(0, n)
    .map((e) => ({ name: e.name, where: e.where, selfMs: e.us / 1000, share: e.us / total }));
  return { totalMs: total / 1000, top };
}
