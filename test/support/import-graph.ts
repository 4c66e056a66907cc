// The import graph of a source tree, built with the TypeScript compiler API (issue 16): every
// import/export declaration, `import()` call and `import('…')` type of each file, resolved with
// ts.resolveModuleName exactly as the compiler resolves it. From it: the edges that run upward
// against a layer table, and the import cycles.
//
// Edge kinds and what counts for what:
// - 'static'  `import … from` / `export … from` / `import '…'`. Under verbatimModuleSyntax
//             `import { type A } from './x'` still loads './x' (it emits `import {} from './x'`),
//             so only a declaration-level `import type` / `export type` is a type edge.
// - 'dynamic' `import('…')` calls: loaded later, but a dependency all the same.
// - 'type'    `import type`, `export type`, `typeof import('…')`: erased when compiled.
// All three count for layering: a type from a higher layer ties the lower layer's meaning to it.
// All three count for cycles too. A type-only cycle cannot break module initialisation, but the
// cycle this test is about is architectural: two modules that can be neither understood, tested
// nor moved without each other. Splitting the shared type into its own module is cheap, and it
// is what a cycle of runtime imports needs anyway. Each reported cycle says which kinds of edge
// close it (`runtime`: it survives with type edges dropped), so a reader sees the load-order risk.
import path from 'node:path';
import ts from 'typescript';

export type EdgeKind = 'static' | 'dynamic' | 'type';

/** One import, by source-root-relative POSIX paths. */
export interface Edge {
  readonly from: string;
  readonly to: string;
  readonly kind: EdgeKind;
}

/** A source tree to read: its root, its files (relative to the root) and how to read them. */
export interface SourceTree {
  readonly root: string;
  readonly files: readonly string[];
  readonly host: ts.ModuleResolutionHost;
}

export interface ImportGraph {
  readonly files: readonly string[];
  readonly edges: readonly Edge[];
  /** Relative specifiers no file of the tree answers: a typo, or a file outside the root. */
  readonly unresolved: readonly { readonly from: string; readonly specifier: string }[];
}

/** A layer: the files it owns (a file name, or a directory ending in '/') and what they may import. */
export interface Layer {
  readonly name: string;
  readonly owns: readonly string[];
  readonly mayImport: readonly string[];
  /** Layers it may import types from (`import type`) but not values. */
  readonly mayImportTypes?: readonly string[];
  /**
   * Runs in a browser as well as in Node: neither its files nor anything they import (every edge
   * kind, transitively) may name a Node builtin, an npm package or a Node-only global
   * (test/support/node-api-reach.ts).
   */
  readonly runtimeNeutral?: boolean;
}

const LEAVES = ['errors', 'optional-dependency', 'platform'];

/**
 * Floe's layers, lowest first (docs/ARCHITECTURE.md, "Layers and what may import what").
 * A file belongs to the layer with the longest matching `owns` entry; a layer may import itself.
 */
export const FLOE_LAYERS: readonly Layer[] = [
  { name: 'errors', owns: ['errors.ts'], mayImport: [] },
  { name: 'optional-dependency', owns: ['optional-dependency.ts', 'optional-dependency.browser.ts'], mayImport: ['errors'] },
  // What the read path needs from its host (byte helpers, random bytes, a yield), for Node and
  // browsers alike (issue 31): a leaf below format, free of Node like src/plot.
  { name: 'platform', owns: ['platform/'], mayImport: ['errors'], runtimeNeutral: true },
  { name: 'format', owns: ['format/'], mayImport: LEAVES },
  // Plots as pixels and layouts (axes, ticks, colour maps, colour bar, font): the CLI's PNGs and
  // the browser page draw with the same code, so it takes nothing from Node and nothing above errors.
  { name: 'plot', owns: ['plot/'], mayImport: ['errors'], runtimeNeutral: true },
  { name: 'cache', owns: ['cache/'], mayImport: LEAVES, mayImportTypes: ['format'] },
  { name: 'engine', owns: ['engine/'], mayImport: [...LEAVES, 'format', 'cache'] },
  { name: 'txn', owns: ['txn/'], mayImport: [...LEAVES, 'format', 'cache', 'engine'] },
  // The query layer reads through engine's ReadSource; it never needs txn (sessions implement it).
  { name: 'query', owns: ['query/'], mayImport: [...LEAVES, 'format', 'cache', 'engine'] },
  { name: 'testing', owns: ['testing/'], mayImport: [...LEAVES, 'format', 'engine', 'txn'] },
  // floe/distributed: coordinator and workers on BullMQ, a layer above txn (an entry point of its own).
  { name: 'distributed', owns: ['distributed/'], mayImport: [...LEAVES, 'format', 'cache', 'engine', 'txn'] },
  // 'cli-conformance' is a file of the CLI (its command list loads it), kept apart only because
  // it alone may reach floe/testing.
  { name: 'cli', owns: ['cli/'], mayImport: [...LEAVES, 'format', 'cache', 'engine', 'txn', 'query', 'plot', 'distributed', 'cli-conformance'] },
  // The one door from src into floe/testing: `floe conformance`.
  {
    name: 'cli-conformance',
    owns: ['cli/commands/conformance.ts'],
    mayImport: [...LEAVES, 'format', 'cache', 'engine', 'txn', 'query', 'cli', 'testing'],
  },
  // The public API re-exports the layers; floe/testing and the CLI are entry points of their own.
  { name: 'index', owns: ['index.ts'], mayImport: [...LEAVES, 'format', 'cache', 'engine', 'txn', 'query'] },
  // The viewer page `floe serve` answers at /ui/ (issue 34): pure modules (view state, zoom and pan,
  // downloads) and the page's DOM code under ui/page/, bundled for the browser by
  // scripts/build-viewer.mjs; it reads through the browser entry's layers and draws with src/plot,
  // and nothing in src imports it (the server serves its built files).
  { name: 'ui', owns: ['ui/'], mayImport: [...LEAVES, 'format', 'cache', 'engine', 'txn', 'query', 'plot', 'browser'] },
  // The browser entry (issue 31): the read path only; what its static graph reaches of Node is
  // checked in test/unit/architecture/import-graph.test.ts.
  { name: 'browser', owns: ['browser.ts'], mayImport: [...LEAVES, 'format', 'cache', 'engine', 'txn', 'query'] },
];

/** The compiler options module resolution uses: the project's own. */
export function projectCompilerOptions(tsconfigPath: string): ts.CompilerOptions {
  const read = ts.readConfigFile(tsconfigPath, (file) => ts.sys.readFile(file));
  if (read.error) throw new Error(ts.flattenDiagnosticMessageText(read.error.messageText, '\n'));
  return ts.parseJsonConfigFileContent(read.config, ts.sys, path.dirname(tsconfigPath)).options;
}

/** The TypeScript and JavaScript module files under `root` on disk. */
export function diskTree(root: string): SourceTree {
  const absolute = ts.sys.readDirectory(root, ['.ts', '.mts', '.mjs', '.js']);
  const files = absolute.filter((file) => !file.endsWith('.d.ts')).map((file) => toPosix(path.relative(root, file)));
  return { root, files: files.sort(), host: ts.sys };
}

/** A tree that exists only in memory (relative path -> text): for fixtures. */
export function memoryTree(root: string, texts: Readonly<Record<string, string>>): SourceTree {
  const byPath = new Map(Object.entries(texts).map(([rel, text]) => [path.join(root, rel), text]));
  const host: ts.ModuleResolutionHost = {
    fileExists: (file) => byPath.has(file),
    readFile: (file) => byPath.get(file),
    directoryExists: (dir) => [...byPath.keys()].some((file) => file.startsWith(dir + path.sep)),
  };
  return { root, files: Object.keys(texts).sort(), host };
}

/** Builds the graph: every file's imports, resolved; edges to files outside the tree are dropped. */
export function buildImportGraph(tree: SourceTree, options: ts.CompilerOptions): ImportGraph {
  const edges: Edge[] = [];
  const unresolved: { from: string; specifier: string }[] = [];
  const known = new Set(tree.files);
  for (const from of tree.files) {
    const fileName = path.join(tree.root, from);
    const text = tree.host.readFile(fileName);
    if (text === undefined) throw new Error(`cannot read ${fileName}`);
    for (const { specifier, kind } of importsOf(fileName, text)) {
      const to = resolve(specifier, fileName, tree, options);
      if (to !== undefined && known.has(to)) edges.push({ from, to, kind });
      else if (isRelative(specifier)) unresolved.push({ from, specifier });
    }
  }
  return { files: tree.files, edges: dedupe(edges), unresolved };
}

interface RawImport {
  readonly specifier: string;
  readonly kind: EdgeKind;
}

/** The module specifiers a file names, from its syntax tree (no type checking needed). */
export function importsOf(fileName: string, text: string): RawImport[] {
  const kind = /\.m?js$/.test(fileName) ? ts.ScriptKind.JS : ts.ScriptKind.TS;
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, false, kind);
  const found: RawImport[] = [];
  const visit = (node: ts.Node): void => {
    const one = importOf(node);
    if (one) found.push(one);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

function importOf(node: ts.Node): RawImport | undefined {
  if (ts.isImportDeclaration(node)) {
    return literal(node.moduleSpecifier, node.importClause?.isTypeOnly ? 'type' : 'static');
  }
  if (ts.isExportDeclaration(node) && node.moduleSpecifier) {
    return literal(node.moduleSpecifier, node.isTypeOnly ? 'type' : 'static');
  }
  if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
    const [argument] = node.arguments;
    return argument ? literal(argument, 'dynamic') : undefined;
  }
  if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) {
    return literal(node.argument.literal, 'type');
  }
  if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) {
    return literal(node.moduleReference.expression, node.isTypeOnly ? 'type' : 'static');
  }
  return undefined;
}

function literal(node: ts.Node, kind: EdgeKind): RawImport | undefined {
  return ts.isStringLiteralLike(node) ? { specifier: node.text, kind } : undefined;
}

function resolve(specifier: string, containingFile: string, tree: SourceTree, options: ts.CompilerOptions): string | undefined {
  // Floe is ESM throughout ("type": "module"): resolve as an `import`, never as a `require`.
  const { resolvedModule } = ts.resolveModuleName(specifier, containingFile, options, tree.host, undefined, undefined, ts.ModuleKind.ESNext);
  if (!resolvedModule || resolvedModule.isExternalLibraryImport) return undefined;
  const relative = path.relative(tree.root, resolvedModule.resolvedFileName);
  return relative.startsWith('..') || path.isAbsolute(relative) ? undefined : toPosix(relative);
}

function isRelative(specifier: string): boolean {
  return specifier.startsWith('./') || specifier.startsWith('../');
}

function toPosix(relative: string): string {
  return relative.split(path.sep).join('/');
}

/** One edge per (from, to, kind): a file importing a module twice the same way is one edge. */
function dedupe(edges: readonly Edge[]): Edge[] {
  const seen = new Map<string, Edge>();
  for (const edge of edges) seen.set(`${edge.from}\0${edge.to}\0${edge.kind}`, edge);
  return [...seen.values()];
}

// ---------------------------------------------------------------------------------------------
// Layering

export interface LayerViolation extends Edge {
  readonly fromLayer: string;
  readonly toLayer: string;
}

/** The layer a file belongs to: its longest matching `owns` entry, or undefined. */
export function layerOf(file: string, layers: readonly Layer[]): string | undefined {
  let best: { name: string; length: number } | undefined;
  for (const layer of layers) {
    for (const owned of layer.owns) {
      const matches = owned.endsWith('/') ? file.startsWith(owned) : file === owned;
      if (matches && owned.length > (best?.length ?? -1)) best = { name: layer.name, length: owned.length };
    }
  }
  return best?.name;
}

/** Files no layer owns: the table is out of date. */
export function unlayeredFiles(graph: ImportGraph, layers: readonly Layer[]): string[] {
  return graph.files.filter((file) => layerOf(file, layers) === undefined);
}

/** Every edge its source layer may not take (an upward import, or a value where only types may go). */
export function layerViolations(graph: ImportGraph, layers: readonly Layer[]): LayerViolation[] {
  const byName = new Map(layers.map((layer) => [layer.name, layer]));
  const violations: LayerViolation[] = [];
  for (const edge of graph.edges) {
    const fromLayer = layerOf(edge.from, layers);
    const toLayer = layerOf(edge.to, layers);
    const rule = fromLayer === undefined ? undefined : byName.get(fromLayer);
    if (rule === undefined || toLayer === undefined) continue; // reported by unlayeredFiles
    if (!mayTake(rule, toLayer, edge.kind)) violations.push({ ...edge, fromLayer: rule.name, toLayer });
  }
  return violations.sort(byEdge);
}

function mayTake(rule: Layer, toLayer: string, kind: EdgeKind): boolean {
  if (toLayer === rule.name || rule.mayImport.includes(toLayer)) return true;
  return kind === 'type' && (rule.mayImportTypes ?? []).includes(toLayer);
}

function byEdge(a: Edge, b: Edge): number {
  return a.from.localeCompare(b.from) || a.to.localeCompare(b.to) || a.kind.localeCompare(b.kind);
}

export function formatViolation(v: LayerViolation): string {
  return `${v.from} (${v.fromLayer}) -> ${v.to} (${v.toLayer}) [${v.kind}]`;
}

// ---------------------------------------------------------------------------------------------
// Cycles

export interface Cycle {
  /** The files of the strongly connected component, sorted. */
  readonly files: readonly string[];
  /** Whether the cycle survives with type-only edges dropped (a load-order risk). */
  readonly runtime: boolean;
}

/** Strongly connected components of more than one file, and files that import themselves. */
export function findCycles(graph: ImportGraph): Cycle[] {
  const all = components(graph.files, graph.edges);
  const runtimeEdges = graph.edges.filter((edge) => edge.kind !== 'type');
  const runtimeKeys = new Set(components(graph.files, runtimeEdges).map((files) => files.join('\n')));
  return all
    .map((files) => ({ files, runtime: runtimeKeys.has(files.join('\n')) }))
    .sort((a, b) => a.files[0]!.localeCompare(b.files[0]!));
}

/** Tarjan's algorithm; returns only the cyclic components, each sorted. */
function components(files: readonly string[], edges: readonly Edge[]): string[][] {
  const next = new Map<string, string[]>(files.map((file) => [file, []]));
  for (const edge of edges) next.get(edge.from)?.push(edge.to);
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const connect = (file: string): void => {
    index.set(file, index.size);
    low.set(file, index.get(file)!);
    stack.push(file);
    onStack.add(file);
    for (const to of next.get(file) ?? []) {
      if (!index.has(to)) {
        connect(to);
        low.set(file, Math.min(low.get(file)!, low.get(to)!));
      } else if (onStack.has(to)) {
        low.set(file, Math.min(low.get(file)!, index.get(to)!));
      }
    }
    if (low.get(file) !== index.get(file)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    const selfImport = (next.get(file) ?? []).includes(file);
    if (component.length > 1 || selfImport) found.push(component.sort());
  };
  for (const file of files) if (!index.has(file)) connect(file);
  return found;
}

/** A cycle as one line: its files, and whether runtime imports alone close it. */
export function formatCycle(cycle: Cycle): string {
  return `${cycle.files.join(' <-> ')}${cycle.runtime ? '' : ' (type imports only)'}`;
}

// ---------------------------------------------------------------------------------------------
// What importing a module loads

/** Static edges by importer (type edges are erased; dynamic imports load when called). */
function staticNext(graph: ImportGraph): Map<string, string[]> {
  const next = new Map<string, string[]>();
  for (const edge of graph.edges) {
    if (edge.kind !== 'static') continue;
    const list = next.get(edge.from) ?? [];
    list.push(edge.to);
    next.set(edge.from, list);
  }
  return next;
}

/**
 * The files importing `entry` evaluates, each with the static import chain that loads it (the
 * shortest, from `entry`): what `import 'floe'` costs, and why each file is part of it.
 */
export function loadedWith(graph: ImportGraph, entry: string): Map<string, readonly string[]> {
  const next = staticNext(graph);
  const chains = new Map<string, readonly string[]>([[entry, [entry]]]);
  // Breadth first (for..of visits what is pushed during the loop), so each chain is a shortest one.
  const queue: (readonly string[])[] = [[entry]];
  for (const chain of queue) {
    for (const to of next.get(chain[chain.length - 1] ?? '') ?? []) {
      if (chains.has(to)) continue;
      const longer = [...chain, to];
      chains.set(to, longer);
      queue.push(longer);
    }
  }
  return chains;
}

/**
 * The graph the browser build resolves (issue 31, scripts/build-browser.mjs): an import of `x.ts`
 * goes to `x.browser.ts` where the tree has one, except from that sibling itself.
 */
export function withBrowserSiblings(graph: ImportGraph): ImportGraph {
  const files = new Set(graph.files);
  const siblingOf = (file: string): string | undefined => {
    if (!file.endsWith('.ts') || file.endsWith('.browser.ts')) return undefined;
    const sibling = `${file.slice(0, -'.ts'.length)}.browser.ts`;
    return files.has(sibling) ? sibling : undefined;
  };
  return {
    ...graph,
    edges: graph.edges.map((edge) => {
      const sibling = siblingOf(edge.to);
      return sibling === undefined || sibling === edge.from ? edge : { ...edge, to: sibling };
    }),
  };
}

// ---------------------------------------------------------------------------------------------
// Re-export-only modules

/** The statements of a module that are not `export … from '…'` (a re-export-only module has none). */
export function nonReexports(fileName: string, text: string): string[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  return source.statements
    .filter((statement) => !(ts.isExportDeclaration(statement) && statement.moduleSpecifier !== undefined))
    .map((statement) => statement.getText(source).split('\n')[0]!);
}
