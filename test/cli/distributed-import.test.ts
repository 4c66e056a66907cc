// The planner of `floe import --distributed` (src/cli/distributed-import.ts): tasks own their
// chunk objects (each in exactly one task, whole), stay within their limits, keep source and key
// order, and are the same for the same input (a rerun resumes the same write).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isImportTask, planImportTasks, type ImportSource } from '../../src/cli/distributed-import.ts';

const source = fc.record({
  source: fc.constantFrom('/data/a.zarr', '/data/b.zarr', '/data/c.zarr'),
  prefix: fc.constantFrom('', 'a/', 'b/'),
  chunks: fc.uniqueArray(fc.record({ key: fc.stringMatching(/^c(\/[0-9]{1,2}){1,2}$/), size: fc.nat({ max: 5000 }) }), { selector: (c) => c.key, maxLength: 40 }),
});
const sources = fc.uniqueArray(source, { selector: (s) => s.source, maxLength: 3 });
const limits = fc.record({ chunks: fc.integer({ min: 1, max: 10 }), bytes: fc.integer({ min: 1, max: 20_000 }) });

describe('planImportTasks', () => {
  it('puts every chunk object in exactly one task, within the limits, in order, deterministically', () => {
    fc.assert(fc.property(sources, limits, (given: ImportSource[], limit) => {
      const tasks = planImportTasks(given, limit);
      expect(planImportTasks(given, limit)).toEqual(tasks);
      const placed = tasks.flatMap((t) => t.keys.map((k) => `${t.source}|${t.prefix}|${k}`));
      const expected = given.flatMap((s) => [...s.chunks].map((c) => c.key).sort().map((k) => `${s.source}|${s.prefix}|${k}`));
      expect(placed).toEqual(expected); // each once, sources in order, keys sorted
      for (const t of tasks) {
        const sizes = new Map(given.find((s) => s.source === t.source)!.chunks.map((c) => [c.key, c.size]));
        const bytes = t.keys.reduce((n, k) => n + sizes.get(k)!, 0);
        expect(t.keys.length).toBeGreaterThan(0);
        expect(t.keys.length).toBeLessThanOrEqual(limit.chunks);
        // An object larger than the byte limit goes alone; otherwise the limit holds.
        if (t.keys.length > 1) expect(bytes).toBeLessThanOrEqual(limit.bytes);
        expect(isImportTask(t)).toBe(true);
      }
    }));
  });

  it('refuses tasks that are not import tasks or reach outside their source', () => {
    expect(isImportTask({ kind: 'floe-import', source: '/d', prefix: '', keys: ['c/0'] })).toBe(true);
    expect(isImportTask({ kind: 'floe-import', source: 'relative', prefix: '', keys: ['c/0'] })).toBe(false);
    expect(isImportTask({ kind: 'floe-import', source: '/d', prefix: '', keys: ['../etc/passwd'] })).toBe(false);
    expect(isImportTask({ kind: 'other', source: '/d', prefix: '', keys: [] })).toBe(false);
    expect(isImportTask({ chunks: [0], value: 1 })).toBe(false);
  });
});
