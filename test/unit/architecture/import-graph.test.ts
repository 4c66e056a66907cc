// Issue 16: the import graph of src/ keeps the layer order of docs/ARCHITECTURE.md and has no
// cycles. The checker (test/support/import-graph.ts) first proves on a planted fixture that it
// finds what it should, so an empty report on src/ means something.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  FLOE_LAYERS,
  buildImportGraph,
  diskTree,
  findCycles,
  formatCycle,
  formatViolation,
  layerViolations,
  memoryTree,
  nonReexports,
  projectCompilerOptions,
  unlayeredFiles,
  withBrowserSiblings,
  type ImportGraph,
} from '../../support/import-graph.ts';
import { entryNodeApiReach, neutralClosure, nodeApiReach } from '../../support/node-api-reach.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const options = projectCompilerOptions(path.join(root, 'tsconfig.json'));

/** src/ has no import cycles (the read-interface stage removed the last two); keep it so. */
const ALLOWED_CYCLES: readonly string[] = [];

/**
 * What src/browser.ts's static graph still reaches of Node (issue 31), in the graph the browser
 * build resolves (withBrowserSiblings: `x.browser.ts` replaces `x.ts`). Stage 1 moved Buffer,
 * setImmediate, process and node:crypto behind src/platform/host.ts; stage 2 gave the decode
 * pool's threads, the fs and SQLite backends, local-file reads and the native codec loaders
 * browser siblings, and loads Node builtins on Node-only paths through loadPackage. Keep it empty.
 */
const BROWSER_STILL_NODE_ONLY: readonly string[] = [];

describe('the import-graph checker, on a planted fixture', () => {
  const fixture = buildImportGraph(
    memoryTree('/fixture/src', {
      'errors.ts': `export class FloeError extends Error {}`,
      'format/a.ts': `import { b } from './b.ts';\nimport { readFileSync } from 'node:fs';\nimport { zlibSync } from 'fflate';\nexport const a = b;`,
      'format/b.ts': `import type { A } from './a.ts';\nimport { FloeError } from '../errors.ts';\nexport const b = 1;`,
      'format/self.ts': `export * from './self.ts';`,
      'format/up.ts': `import { x } from '../engine/x.ts';`,
      'format/missing.ts': `import { gone } from './gone.ts';`,
      'cache/values.ts': `import { b } from '../format/b.ts';`,
      'cache/types.ts': `import type { A } from '../format/a.ts';\ntype B = typeof import('../format/b.ts');`,
      'engine/x.ts': `import { a } from '../format/a.ts';\nexport const x = () => import('../txn/t.ts');`,
      'txn/t.ts': `import { u } from './u.ts';\nexport const t = 1;`,
      'txn/u.ts': `export { t as u } from './t.ts';`,
    }),
    options,
  );

  it('finds every kind of edge and drops packages and builtins', () => {
    expect(fixture.edges).toHaveLength(12);
    expect(fixture.edges).toContainEqual({ from: 'engine/x.ts', to: 'txn/t.ts', kind: 'dynamic' });
    expect(fixture.edges).toContainEqual({ from: 'cache/types.ts', to: 'format/b.ts', kind: 'type' });
    expect(fixture.unresolved).toEqual([{ from: 'format/missing.ts', specifier: './gone.ts' }]);
  });

  it('reports exactly the upward imports, and a value import where only types may go', () => {
    expect(layerViolations(fixture, FLOE_LAYERS).map(formatViolation)).toEqual([
      'cache/values.ts (cache) -> format/b.ts (format) [static]',
      'engine/x.ts (engine) -> txn/t.ts (txn) [dynamic]',
      'format/up.ts (format) -> engine/x.ts (engine) [static]',
    ]);
  });

  it('reports exactly the cycles: type-only, runtime and a self-import', () => {
    expect(findCycles(fixture).map(formatCycle)).toEqual([
      'format/a.ts <-> format/b.ts (type imports only)',
      'format/self.ts',
      'txn/t.ts <-> txn/u.ts',
    ]);
  });
});

describe('the Node-API checker of runtime-neutral layers, on a planted fixture', () => {
  const tree = memoryTree('/neutral/src', {
    'errors.ts': `import { inspect } from 'node:util';\nexport class FloeError extends Error {}`,
    'plot/a.ts': `import { b } from './b.ts';\nimport { FloeError } from '../errors.ts';\nexport const a = (o: { Buffer: number }) => o.Buffer + b;`,
    'plot/b.ts': `export const b = Buffer.byteLength('x') + (typeof process === 'undefined' ? 0 : 1);\nexport const later = () => import('fs');`,
    'plot/c.ts': `import type { DecodedPng } from 'fast-png';\nexport const c = { require: 1, setTimeout };`,
    'cli/x.ts': `import { readFileSync } from 'node:fs';\nimport { a } from '../plot/a.ts';\nexport const x = Buffer.alloc(1);`,
  });
  const fixture = buildImportGraph(tree, options);

  it('follows imports out of the layer, names each use with its chain, and ignores property names and files the layer does not reach', () => {
    expect([...neutralClosure(fixture, FLOE_LAYERS).keys()].sort()).toEqual(['errors.ts', 'plot/a.ts', 'plot/b.ts', 'plot/c.ts']);
    expect(nodeApiReach(tree, fixture, FLOE_LAYERS)).toEqual([
      'errors.ts: imports node:util (via plot/a.ts -> errors.ts)',
      'plot/b.ts: imports fs',
      'plot/b.ts: uses Buffer (line 1)',
      'plot/b.ts: uses process (line 1)',
      'plot/c.ts: imports package fast-png',
    ]);
  });
});

describe('the Node-API checker of an entry point, on a planted fixture', () => {
  const tree = memoryTree('/entry/src', {
    'browser.ts': `export { a } from './format/a.ts';\nexport type { T } from './format/typed.ts';`,
    'format/a.ts': `import { b } from './b.ts';\nimport LRU from 'lru-cache';\nimport { x } from 'node-only-package';\nexport const a = () => import('./lazy.ts');\nconst v = { Buffer: 1 }.Buffer;`,
    'format/b.ts': `import { randomFillSync } from 'node:crypto';\nimport type * as Zlib from 'node:zlib';\nexport const b = Buffer.alloc(1);\nexport const c = Buffer.alloc(2);`,
    'format/lazy.ts': `import { gzipSync } from 'node:zlib';`,
    'format/typed.ts': `import { readFileSync } from 'node:fs';\nexport type T = number;`,
  });

  it('follows the browser build to `x.browser.ts` where it sits beside `x.ts` (but not from the sibling itself)', () => {
    const siblings = memoryTree('/siblings/src', {
      'browser.ts': `export { a } from './format/a.ts';`,
      'format/a.ts': `import { readFileSync } from 'node:fs';\nexport const a = 1;`,
      'format/a.browser.ts': `import type { a as nodeA } from './a.ts';\nexport const a = 2;`,
    });
    const graph = buildImportGraph(siblings, options);
    expect(entryNodeApiReach(siblings, graph, 'browser.ts').map(({ use }) => use)).toEqual(['format/a.ts: imports node:fs']);
    expect(entryNodeApiReach(siblings, withBrowserSiblings(graph), 'browser.ts')).toEqual([]);
    expect(withBrowserSiblings(graph).edges.filter((e) => e.from === 'format/a.browser.ts').map((e) => e.to)).toEqual(['format/a.ts']);
  });

  it('reports what importing the entry evaluates (not import() targets, not type-only imports or files, not safe packages), once per file and use', () => {
    expect(entryNodeApiReach(tree, buildImportGraph(tree, options), 'browser.ts')).toEqual([
      { use: 'format/a.ts: imports package node-only-package', via: 'browser.ts -> format/a.ts' },
      { use: 'format/b.ts: imports node:crypto', via: 'browser.ts -> format/a.ts -> format/b.ts' },
      { use: 'format/b.ts: uses Buffer', via: 'browser.ts -> format/a.ts -> format/b.ts' },
    ]);
  });
});

describe('the import graph of src/', () => {
  let graph: ImportGraph | undefined;
  const srcGraph = (): ImportGraph => (graph ??= buildImportGraph(diskTree(path.join(root, 'src')), options));

  it('is a real graph: every relative import resolves, and there are more edges than files', () => {
    const { files, edges, unresolved } = srcGraph();
    expect(unresolved).toEqual([]);
    expect(files.length).toBeGreaterThan(200);
    expect(edges.length).toBeGreaterThanOrEqual(files.length);
  });

  it('puts every file in a layer, and every import runs down the layer table', () => {
    expect(unlayeredFiles(srcGraph(), FLOE_LAYERS)).toEqual([]);
    expect(layerViolations(srcGraph(), FLOE_LAYERS).map(formatViolation)).toEqual([]);
  });

  it('has no import cycles but the allowed ones', () => {
    expect(findCycles(srcGraph()).map(formatCycle)).toEqual(ALLOWED_CYCLES);
  });

  it('keeps src/plot free of Node: no builtin, package or Node-only global in it or anything it imports', () => {
    const reached = neutralClosure(srcGraph(), FLOE_LAYERS);
    expect(reached.size).toBeGreaterThanOrEqual(11); // src/plot's files and errors.ts
    expect(reached.has('plot/heatmap.ts') && reached.has('errors.ts')).toBe(true);
    expect(nodeApiReach(diskTree(path.join(root, 'src')), srcGraph(), FLOE_LAYERS)).toEqual([]);
  });

  it('keeps the browser entry\'s static graph to what BROWSER_STILL_NODE_ONLY allows of Node (none, once stage 2 is done)', () => {
    const reached = entryNodeApiReach(diskTree(path.join(root, 'src')), withBrowserSiblings(srcGraph()), 'browser.ts');
    const extra = reached.filter(({ use }) => !BROWSER_STILL_NODE_ONLY.includes(use)).map(({ use, via }) => `${use} (via ${via})`);
    expect(extra, 'new Node API uses reached from src/browser.ts').toEqual([]);
    expect(reached.map(({ use }) => use), 'BROWSER_STILL_NODE_ONLY lists uses that are gone: drop them').toEqual(BROWSER_STILL_NODE_ONLY);
  });

  it('keeps the viewer page (src/ui/page/main.ts, issue 34) free of Node along the graph the browser build resolves', () => {
    expect(entryNodeApiReach(diskTree(path.join(root, 'src')), withBrowserSiblings(srcGraph()), 'ui/page/main.ts')).toEqual([]);
  });

  it('keeps src/index.ts to re-exports', () => {
    const file = path.join(root, 'src/index.ts');
    expect(nonReexports(file, readFileSync(file, 'utf8'))).toEqual([]);
  });
});
