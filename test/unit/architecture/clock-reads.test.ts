// Issue 16: time is injected. Nothing in src/ reads the wall clock but the system clock itself
// (src/engine/storage/clock.ts); everything else takes a Clock from its options. The checker
// first proves on a planted fixture that it finds direct reads, so an empty report means something.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { wallClockReads } from '../../support/clock-reads.ts';
import { diskTree, memoryTree } from '../../support/import-graph.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

describe('direct wall-clock reads', () => {
  it('are found by the checker in a planted fixture, and only real ones', () => {
    const fixture = memoryTree('/fixture/src', {
      'a.ts': `export const t = Date.now();\nexport const d = new Date();`,
      'b.ts': `// Date.now() in a comment\nexport const s = 'new Date()';\nexport const fixed = new Date(0);\nexport const parsed = Date.parse('2030');`,
      'c.ts': `export function age(mtime: number) {\n  return globalThis.Date.now() - mtime + Date.now();\n}`,
    });
    expect(wallClockReads(fixture)).toEqual(['a.ts:1 Date.now()', 'a.ts:2 new Date()', 'c.ts:2 Date.now()']);
  });

  it('happen in src/ only inside the system clock', () => {
    const reads = wallClockReads(diskTree(path.join(root, 'src')));
    expect(reads.filter((r) => !r.startsWith('engine/storage/clock.ts:'))).toEqual([]);
    expect(reads.length).toBeGreaterThan(0); // the system clock itself is seen: the scan ran over src
  });
});
