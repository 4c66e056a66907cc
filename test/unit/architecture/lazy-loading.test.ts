// Issues 16/17: what `import 'floe'` loads. V8 keeps every loaded module's source text in the
// heap, and once the heap passes 8 MB it starts incremental marking, which put an extra full GC
// into short query runs (BENCHMARKS.md, "Issues 16/17"). So the parts few programs use load on
// first use, through `import()` inside the async function that needs them, and this file checks
// that they stay out: in the source graph (static imports from src/index.ts, with the chain that
// pulls a file in), and in the built package, by recording every module a fresh `node` loads.
import { execFileSync } from 'node:child_process';
import { statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { buildImportGraph, diskTree, loadedWith, memoryTree, projectCompilerOptions, type ImportGraph } from '../../support/import-graph.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const options = projectCompilerOptions(path.join(root, 'tsconfig.json'));
let graph: ImportGraph | undefined;
const srcGraph = (): ImportGraph => (graph ??= buildImportGraph(diskTree(path.join(root, 'src')), options));

/** Files that load on first use, never with the package (each reached by a dynamic import). */
const LOADED_ON_FIRST_USE: Readonly<Record<string, string>> = {
  'query/http-handler.ts': "a query server's request handling: with its first request",
  'engine/storage/s3-requests.ts': "an S3Storage's requests: with its first call",
  'engine/storage/fs-lock.ts': "an FsStorage's per-key locks: with its first replacing write or delete",
  'engine/storage/fs-tree.ts': "an FsStorage's listings, deletes and temp-file sweeps: with its first list, listDir, delete or sweep",
  'txn/commit.ts': 'the commit machinery: when a writable session is made',
  'engine/vlen-array-values.ts': "vlen-array elements as typed arrays: with a vlen-array array's first get or set",
  'engine/write-value.ts': "a write's value checks: with the first set",
  'txn/rebase.ts': 'rebasing: with the first rebase',
  'txn/fork-overlap.ts': 'the disjoint-forks check: with the first Session.mergeDisjoint (distributed writes)',
  'query/plan/label-lookup.ts': 'label lookups (where, nearest): with the first query that has one',
  'engine/cf-read.ts': "CF decoding (src/format/cf): with the first get with decode: 'cf'",
  'query/plan/cf-estimate.ts': "CF decoding's memory estimate: with the first query planned with decode: 'cf'",
  'engine/cf-write.ts': "CF encoding (src/format/cf/encode.ts): with the first set with encode: 'cf'",
  'query/plan/cf-time.ts': 'CF time coordinates (src/format/cf): with the first coordinate whose units say "since"',
  'txn/ref-expression.ts': 'ref expressions (main~3, @{date}): with Repository.resolve',
  'txn/virtual-chunks.ts': 'virtual chunk access: with the first virtual chunk',
  'format/icechunk/manifest-encode.ts': 'the manifest writer: with the first manifest a commit or maintenance writes',
  'format/icechunk/transaction-log.ts': 'the transaction log codec: with the first commit, rebase or diff that needs one',
  'txn/maintenance/gc-mark.ts': 'garbage collection marking: when a collection starts',
  'txn/maintenance/expire.ts': 'snapshot expiry: with expireSnapshots',
  'txn/maintenance/verify.ts': 'verification: with verify',
  'txn/maintenance/squash.ts': 'squash: with squash',
  'txn/maintenance/ops-log.ts': 'the ops log: with opsLog or a collection',
  'engine/convert.ts': 'v1 -> v3 conversion: with convertV1ToV3',
  'engine/convert-v2.ts': 'v2 -> v3 conversion: with convertV2ToV3',
  'txn/virtualize.ts': 'virtual datasets (the NetCDF-3 scanner, kerchunk references, the import): with the first virtualize call',
  'format/codecs/fflate-backend.ts': 'pure-JS deflate: only in a runtime without node:zlib',
  'format/codecs/deflate-stream.ts': 'gzip/zlib on DecompressionStream: only in a runtime without node:zlib (browsers)',
  // Codecs few arrays use (registry.ts keeps their names and capabilities; the code loads when
  // metadata naming one is opened or created).
  'format/codecs/blosc.ts': 'blosc (Zarr v3 and v1; numcodecs.blosc too): with the first array that names it',
  'format/codecs/bz2.ts': 'bz2 (Zarr v1): with the first array that names it',
  'format/codecs/lzma.ts': 'lzma (Zarr v1): with the first array that names it',
  'format/codecs/numcodecs/delta.ts': 'a numcodecs codec: with the first array that names it',
  'format/codecs/numcodecs/fixedscaleoffset.ts': 'a numcodecs codec: with the first array that names it',
  'format/codecs/numcodecs/quantize.ts': 'a numcodecs codec: with the first array that names it',
  'format/codecs/numcodecs/bitround.ts': 'a numcodecs codec: with the first array that names it',
  'format/codecs/numcodecs/packbits.ts': 'a numcodecs codec: with the first array that names it',
  'format/codecs/numcodecs/astype.ts': 'a numcodecs codec: with the first array that names it',
  'format/codecs/numcodecs/categorize.ts': 'a numcodecs codec: with the first array that names it',
  'format/codecs/numcodecs/json2.ts': 'a numcodecs codec: with the first array that names it',
  'format/codecs/numcodecs/msgpack2.ts': 'a numcodecs codec: with the first array that names it',
  'format/codecs/numcodecs/compressors.ts': 'a numcodecs codec: with the first array that names it',
  'format/codecs/numcodecs/lz4.ts': 'a numcodecs codec: with the first array that names it',
  'format/codecs/numcodecs/shuffle.ts': 'a numcodecs codec: with the first array that names it',
  'format/codecs/numcodecs/checksum32.ts': 'a numcodecs codec: with the first array that names it',
  'format/codecs/numcodecs/jenkins-lookup3.ts': 'a numcodecs codec: with the first array that names it',
};

/** Directories no library import may reach: the CLI (config editing, `floe serve`), the plots (src/plot, for the CLI and the page), floe/testing and floe/distributed. */
const NEVER_LOADED_DIRS = ['cli/', 'plot/', 'testing/', 'distributed/'];

/** Packages `import 'floe'` must not load (optional peers, CLI-only and test-only libraries). */
const NEVER_LOADED_PACKAGES = ['@aws-sdk/', 'better-sqlite3', 'yaml', 'fast-png', 'fast-check', 'zarrita', 'bullmq', 'ioredis'];

/**
 * Ceiling on Floe's own JavaScript that `import 'floe'` loads from dist/ (comments stripped),
 * in bytes: 731 KB when set (after the non-core codecs went lazy; 805 KB before). Passing it
 * means heap and start-up grow again; load the new code on first use, or raise this knowingly
 * (and re-run the A/B in BENCHMARKS.md).
 */
const EAGER_JS_CEILING = 750_000;

describe('loadedWith, on a planted fixture', () => {
  const fixture = buildImportGraph(
    memoryTree('/fixture/src', {
      'index.ts': `export { a } from './a.ts';\nexport type { T } from './types.ts';`,
      'a.ts': `import { type D } from './d.ts';\nimport type { B } from './b.ts';\nexport const a = () => import('./c.ts');`,
      'b.ts': `export type B = 1;`,
      'c.ts': `import { e } from './e.ts';\nexport const c = e;`,
      'd.ts': `export type D = 1;`,
      'e.ts': `export const e = 1;`,
      'types.ts': `export type T = 1;`,
    }),
    options,
  );

  it('follows static imports only (an inline `type` specifier still loads the module), with the chain to each', () => {
    const loaded = loadedWith(fixture, 'index.ts');
    expect([...loaded.keys()].sort()).toEqual(['a.ts', 'd.ts', 'index.ts']);
    expect(loaded.get('d.ts')).toEqual(['index.ts', 'a.ts', 'd.ts']);
  });
});

describe("what import 'floe' loads, in the sources", () => {
  it('leaves out every file that loads on first use, and says which imports pull one in', () => {
    const loaded = loadedWith(srcGraph(), 'index.ts');
    const pulledIn = Object.keys(LOADED_ON_FIRST_USE)
      .filter((file) => loaded.has(file))
      .map((file) => `${file} (${LOADED_ON_FIRST_USE[file]}) loads with the package: ${loaded.get(file)?.join(' -> ')}`);
    expect(pulledIn).toEqual([]);
  });

  it('never reaches the CLI, the plots or floe/testing', () => {
    const loaded = loadedWith(srcGraph(), 'index.ts');
    const reached = [...loaded.keys()].filter((file) => NEVER_LOADED_DIRS.some((dir) => file.startsWith(dir)));
    expect(reached.map((file) => loaded.get(file)?.join(' -> '))).toEqual([]);
  });

  it('names only files that exist and that a dynamic import of the public API reaches', () => {
    const { files, edges } = srcGraph();
    const dynamicTargets = new Set(edges.filter((edge) => edge.kind === 'dynamic').map((edge) => edge.to));
    const stale = Object.keys(LOADED_ON_FIRST_USE).filter((file) => !files.includes(file) || !dynamicTargets.has(file));
    expect(stale).toEqual([]);
  });
});

describe("what import 'floe' loads, in the built package", () => {
  const dist = path.join(root, 'dist');
  let loadedUrls: string[] | undefined;
  const loadedByNode = (): string[] => (loadedUrls ??= modulesLoadedBy(pathToFileURL(path.join(dist, 'index.js')).href));
  const distFiles = (): string[] =>
    loadedByNode()
      .filter((url) => url.startsWith('file:'))
      .map((url) => fileURLToPath(url))
      .filter((file) => !path.relative(dist, file).startsWith('..'));

  it('is exactly what the source graph predicts: no module loads at import time by other means', () => {
    const predicted = [...loadedWith(srcGraph(), 'index.ts').keys()]
      .map((file) => file.replace(/\.ts$/, '.js'))
      .sort();
    expect(distFiles().map((file) => path.relative(dist, file).split(path.sep).join('/')).sort()).toEqual(predicted);
  });

  it('loads none of the optional, CLI-only or test-only packages', () => {
    const packages = loadedByNode().filter((url) => NEVER_LOADED_PACKAGES.some((name) => url.includes(`/node_modules/${name}`)));
    expect(packages).toEqual([]);
  });

  it(`keeps Floe's own JavaScript loaded at import under ${EAGER_JS_CEILING} bytes`, () => {
    const bytes = distFiles().reduce((sum, file) => sum + statSync(file).size, 0);
    expect(bytes).toBeGreaterThan(100_000); // the measurement saw the package at all
    expect(bytes).toBeLessThanOrEqual(EAGER_JS_CEILING);
  });
});

/**
 * Packages Floe loads with require() on first use (CommonJS, which the ESM load hook above does not
 * see): snappy-wasm, with the first Blosc snappy stream (blosc/snappy.ts).
 */
describe("what import 'floe' requires, in the built package", () => {
  it('leaves snappy-wasm out until a snappy stream is coded', () => {
    const dist = path.join(root, 'dist');
    const child = `import { createRequire } from 'node:module';
const [entry, snappyModule] = process.argv.slice(1);
const cached = () => Object.keys(createRequire(entry).cache).filter((file) => file.includes('/node_modules/snappy-wasm/'));
await import(entry);
const atImport = cached();
const { snappyCompress } = await import(snappyModule);
snappyCompress(new Uint8Array(100), new Uint8Array(200));
process.stdout.write(JSON.stringify({ atImport, afterFirstStream: cached() }));`;
    const args = ['--no-warnings', '--input-type=module', '-e', child, pathToFileURL(path.join(dist, 'index.js')).href, pathToFileURL(path.join(dist, 'format/codecs/blosc/snappy.js')).href];
    const seen = JSON.parse(execFileSync(process.execPath, args, { encoding: 'utf8', timeout: 30_000 })) as { atImport: string[]; afterFirstStream: string[] };
    expect(seen.atImport).toEqual([]);
    expect(seen.afterFirstStream.length).toBeGreaterThan(0); // the check sees the package once it is loaded
  });
});

/**
 * Every module URL a fresh `node` loads to import `entry`, recorded by a module.register load hook.
 * The hook runs on its own thread and posts each URL on one port; importing a sentinel last and
 * waiting for its message means every earlier URL has arrived (a port delivers in order).
 */
function modulesLoadedBy(entry: string): string[] {
  const hooks = `let port;
export function initialize(data) { port = data.port; }
export async function load(url, context, next) {
  const result = await next(url, context);
  port.postMessage(url);
  return result;
}`;
  // In-thread hooks where Node has them (22.15+; register() is deprecated from 26), else a hooks thread.
  const child = `import * as nodeModule from 'node:module';
import { MessageChannel } from 'node:worker_threads';
const loaded = [];
if (typeof nodeModule.registerHooks === 'function') {
  nodeModule.registerHooks({ load(url, context, next) { loaded.push(url); return next(url, context); } });
  await import(process.argv[1]);
} else {
  const sentinel = 'data:text/javascript,export%20default%200';
  const { port1, port2 } = new MessageChannel();
  const drained = new Promise((resolve) => port1.on('message', (url) => (url === sentinel ? resolve() : loaded.push(url))));
  nodeModule.register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(hooks)}), { data: { port: port2 }, transferList: [port2] });
  await import(process.argv[1]);
  await import(sentinel);
  await drained;
  port1.close();
}
process.stdout.write(JSON.stringify(loaded));`;
  const out = execFileSync(process.execPath, ['--no-warnings', '--input-type=module', '-e', child, entry], { encoding: 'utf8', timeout: 30_000 });
  return JSON.parse(out) as string[];
}
