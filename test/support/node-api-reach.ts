// What a runtime-neutral layer (one the browser imports too, such as src/plot) reaches of Node:
// from every file of the layer, along every import edge of the real graph (static, dynamic and
// type; transitively, into whatever layers it may import), each file is read for Node builtins
// (`node:fs`, `fs`), npm packages (which may be Node-only; the layer has none) and Node-only
// globals (Buffer, process, ...). Globals are matched by name in the syntax tree, as identifiers
// that are not property names: a local variable named like one is reported too (rename it).
import { builtinModules } from 'node:module';
import path from 'node:path';
import ts from 'typescript';
import { importsOf, layerOf, loadedWith, type ImportGraph, type Layer, type SourceTree } from './import-graph.ts';

/** Globals Node has and a browser lacks. */
export const NODE_GLOBALS: ReadonlySet<string> = new Set(['Buffer', 'process', 'require', '__dirname', '__filename', 'global', 'setImmediate', 'clearImmediate']);

const BUILTINS: ReadonlySet<string> = new Set(builtinModules);

/** A Node API one file uses: `imports node:fs`, `imports package fast-png`, `uses Buffer` (line numbers 1-based). */
export function nodeApiUses(fileName: string, text: string, options: { runtimeOnly?: boolean } = {}): string[] {
  const uses: string[] = [];
  for (const { specifier, kind } of importsOf(fileName, text)) {
    if (specifier.startsWith('./') || specifier.startsWith('../')) continue;
    if (options.runtimeOnly && kind === 'type') continue; // erased when compiled: nothing to bundle
    const bare = specifier.split('/')[0] ?? specifier;
    uses.push(specifier.startsWith('node:') || BUILTINS.has(bare) ? `imports ${specifier}` : `imports package ${specifier}`);
  }
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, /\.m?js$/.test(fileName) ? ts.ScriptKind.JS : ts.ScriptKind.TS);
  const visit = (node: ts.Node): void => {
    if (ts.isIdentifier(node) && NODE_GLOBALS.has(node.text) && !isPropertyName(node)) {
      uses.push(`uses ${node.text} (line ${source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1})`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return uses;
}

/** `o.Buffer`, `{ process: 1 }`, `interface I { require: 1 }`: a name of a member, not the global. */
function isPropertyName(node: ts.Identifier): boolean {
  const parent = node.parent;
  if (ts.isPropertyAccessExpression(parent) || ts.isQualifiedName(parent)) return (ts.isQualifiedName(parent) ? parent.right : parent.name) === node;
  const named = ts.isPropertyAssignment(parent) || ts.isPropertySignature(parent) || ts.isPropertyDeclaration(parent) || ts.isMethodDeclaration(parent)
    || ts.isMethodSignature(parent) || ts.isEnumMember(parent) || ts.isGetAccessorDeclaration(parent) || ts.isSetAccessorDeclaration(parent);
  return named && parent.name === node;
}

/**
 * The files the runtime-neutral layers reach, roots included, each with the shortest import chain
 * (every edge kind) from a file of such a layer.
 */
export function neutralClosure(graph: ImportGraph, layers: readonly Layer[]): Map<string, readonly string[]> {
  const neutral = new Set(layers.filter((layer) => layer.runtimeNeutral).map((layer) => layer.name));
  const next = new Map<string, string[]>();
  for (const edge of graph.edges) next.set(edge.from, [...(next.get(edge.from) ?? []), edge.to]);
  const roots = graph.files.filter((file) => neutral.has(layerOf(file, layers) ?? ''));
  const chains = new Map<string, readonly string[]>(roots.map((file) => [file, [file]]));
  // Breadth first (for..of visits what is pushed during the loop), so each chain is a shortest one.
  const queue: (readonly string[])[] = roots.map((file) => [file]);
  for (const chain of queue) {
    for (const to of next.get(chain[chain.length - 1] ?? '') ?? []) {
      if (chains.has(to)) continue;
      chains.set(to, [...chain, to]);
      queue.push([...chain, to]);
    }
  }
  return chains;
}

/** Every Node API the runtime-neutral layers reach: `file: what (via a.ts -> b.ts -> file)`. Empty when they are browser-safe. */
export function nodeApiReach(tree: SourceTree, graph: ImportGraph, layers: readonly Layer[]): string[] {
  const found: string[] = [];
  for (const [file, chain] of [...neutralClosure(graph, layers)].sort(([a], [b]) => a.localeCompare(b))) {
    const text = tree.host.readFile(path.join(tree.root, file));
    if (text === undefined) throw new Error(`cannot read ${file}`);
    const via = chain.length > 1 ? ` (via ${chain.join(' -> ')})` : '';
    for (const use of nodeApiUses(file, text)) found.push(`${file}: ${use}${via}`);
  }
  return found;
}

/**
 * npm packages a browser bundle may take: they name no Node API (checked when each was added;
 * @bokuweb/zstd-wasm: its web glue, dist/web/zstd.js, and its .wasm, which only the browser build imports).
 */
export const BROWSER_SAFE_PACKAGES: ReadonlySet<string> = new Set(['lru-cache', 'flatbuffers', 'ts-pattern', '@bokuweb/zstd-wasm']);

/**
 * What an entry point's static graph (what importing it evaluates, the graph a bundler must
 * resolve up front) reaches of Node: builtins, Node-only globals and packages not known to be
 * browser-safe (type-only imports, erased when compiled, aside), as `file: what` (line numbers dropped, so the list is stable under edits), each
 * with the chain that loads it.
 */
export function entryNodeApiReach(tree: SourceTree, graph: ImportGraph, entry: string, safePackages: ReadonlySet<string> = BROWSER_SAFE_PACKAGES): { use: string; via: string }[] {
  const found = new Map<string, string>();
  for (const [file, chain] of [...loadedWith(graph, entry)].sort(([a], [b]) => a.localeCompare(b))) {
    const text = tree.host.readFile(path.join(tree.root, file));
    if (text === undefined) throw new Error(`cannot read ${file}`);
    for (const use of nodeApiUses(file, text, { runtimeOnly: true })) {
      const pkg = /^imports package (.+)$/.exec(use)?.[1];
      if (pkg !== undefined && safePackages.has(pkg.startsWith('@') ? pkg.split('/').slice(0, 2).join('/') : (pkg.split('/')[0] ?? pkg))) continue;
      const key = `${file}: ${use.replace(/ \(line \d+\)$/, '')}`;
      if (!found.has(key)) found.set(key, chain.join(' -> '));
    }
  }
  return [...found].map(([use, via]) => ({ use, via }));
}
