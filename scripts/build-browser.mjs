// The browser build (issue 31): src/browser.ts bundled by esbuild for `platform: 'browser'` into
// ES modules, dist/browser/floe.js, that `floe/browser` exports (pages without a bundler load it
// directly), decode-worker.js beside it (the decode pool's Web Worker) and chunks/ (shared code,
// and what loads on first use). Node-only modules have a browser sibling: where `x.browser.ts` sits beside
// `x.ts`, the bundle takes it instead (the decode pool's threads, the filesystem and SQLite
// backends, local-file reads, zstd's and crc32c's native loaders, optional packages). The same
// rule is applied to the source graph by test/unit/architecture/import-graph.test.ts, which checks
// that the browser entry then reaches no Node API; esbuild itself refuses a `node:` import for the
// browser platform. The zstd .wasm is inlined (binary loader): every codec API stays synchronous.
//   node scripts/build-browser.mjs [OUTDIR]     (default dist/browser)
import { existsSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';

export const ROOT = path.resolve(import.meta.dirname, '..');

/** The browser build's replacement for a source file: `x.browser.ts` beside `x.ts`, when there is one. */
export function browserSibling(file) {
  if (!file.endsWith('.ts') || file.endsWith('.browser.ts') || file.endsWith('.d.ts')) return undefined;
  const sibling = file.slice(0, -'.ts'.length) + '.browser.ts';
  return existsSync(sibling) ? sibling : undefined;
}

// seek-bzip allocates its work arrays with `new Buffer(n)` and reads a block's magic with
// `toString('hex')`; its files get this Uint8Array stand-in (pages have no Buffer).
const SEEK_BZIP_BUFFER = `var Buffer = class extends Uint8Array {
  toString(encoding) { return encoding === 'hex' ? Array.from(this, (b) => b.toString(16).padStart(2, '0')).join('') : super.toString(); }
  copy(target, at = 0, start = 0, end = this.length) { target.set(this.subarray(start, end), at); return end - start; }
};
`;

/**
 * An esbuild plugin resolving relative imports of `x.ts` to `x.browser.ts` where it exists,
 * @bokuweb/zstd-wasm's web glue and .wasm and snappy-wasm's .wasm by path (their `exports` maps
 * hide them), and giving seek-bzip's files their Buffer stand-in.
 */
export const browserSiblings = {
  name: 'floe-browser-siblings',
  setup(build) {
    build.onResolve({ filter: /^\.\.?\// }, (args) => {
      const sibling = browserSibling(path.resolve(args.resolveDir, args.path));
      return sibling === undefined || sibling === args.importer ? undefined : { path: sibling };
    });
    build.onResolve({ filter: /^@bokuweb\/zstd-wasm\/dist\/web\/[\w.]+$/ }, (args) => ({ path: path.join(ROOT, 'node_modules', args.path) }));
    build.onResolve({ filter: /^snappy-wasm\/es\/snappy_bg\.wasm$/ }, (args) => ({ path: path.join(ROOT, 'node_modules', args.path) }));
    build.onLoad({ filter: /[\\/]node_modules[\\/]seek-bzip[\\/]lib[\\/][\w]+\.js$/ }, async (args) => ({
      contents: SEEK_BZIP_BUFFER + (await readFile(args.path, 'utf8')),
      loader: 'js',
    }));
  },
};

/**
 * Lazy imports a page takes anyway, made static in the browser build only (Node keeps them lazy,
 * for `import 'floe'`'s eager-JS ceiling): fflate and the DecompressionStream decoders, which
 * deflate-backend.ts's top-level await loads while the core evaluates (a page has no node:zlib);
 * HTTP storage's request layer, which every read over HTTP loads on its first request; the label
 * lookup of every query by labels.
 * Each would otherwise be one more round trip of the module waterfall before a page's first read.
 */
export const EAGER_IN_BROWSER = ['src/format/codecs/fflate-backend.ts', 'src/format/codecs/deflate-stream.ts', 'src/engine/storage/http-requests.ts', 'src/query/plan/label-lookup.ts'];
const EAGER = new Set(EAGER_IN_BROWSER.map((file) => path.join(ROOT, file)));
const DYNAMIC_IMPORT = /\bimport\((['"])(\.\.?\/[^'"]+)\1\)/g;
const TOP_LEVEL_AWAIT = /^(export )?((const|let|var) [^=]+= )?await /m;

/** `file`'s source with EAGER targets imported statically and `hub` (import lines) before it; undefined when unchanged. */
async function browserSource(file, hub = '') {
  const heads = [];
  const text = (await readFile(file, 'utf8')).replace(DYNAMIC_IMPORT, (call, quote, specifier) => {
    if (!EAGER.has(path.resolve(path.dirname(file), specifier))) return call;
    heads.push(`import * as __floeEager${heads.length} from ${JSON.stringify(specifier)};`);
    return `Promise.resolve(__floeEager${heads.length - 1})`;
  });
  return heads.length === 0 && hub === '' ? undefined : { contents: `${hub}${heads.join('')}${text}`, loader: 'ts' };
}

/** The first pass's rewrite: EAGER targets only. */
const eagerImports = {
  name: 'floe-eager-imports',
  setup(build) {
    build.onLoad({ filter: /[\\/]src[\\/].*\.ts$/ }, (args) => browserSource(args.path));
  },
};

/**
 * An esbuild plugin that keeps the core (what a page loads before its first read) in a few chunks.
 * esbuild splits shared code by the exact set of entry points (the decode worker and every module
 * loaded on first use count as entries) that reach each module, and the lazy modules (commit,
 * rebase, each codec…) each reach a different part of the core: ~50 core chunks, which a page
 * fetched before its first read, six at a time over HTTP/1.1. A first pass of the same build
 * finds each entry's static closure; the real pass then has each lazy module import, for its side
 * effects, the modules every entry that can load it has already loaded (the page's core for
 * page-only modules, the part of it the worker shares for codecs). So every core module is reached
 * from the same entries and lands in one of a few chunks; at run time those imports find their
 * modules evaluated and do nothing. Only Floe's own modules are imported so (a package marked
side-effect free would have such imports dropped). Not for a module imported by one with a top-level await (it
 * loads while the core evaluates: waiting on the core there would never end), nor entry modules
 * (floe.js's `import.meta.url` must stay floe.js's). Also applies EAGER_IN_BROWSER.
 */
export const coreChunks = {
  name: 'floe-core-chunks',
  async setup(build) {
    const options = build.initialOptions;
    const workDir = options.absWorkingDir ?? process.cwd();
    const hubs = new Map();
    if (options.splitting) {
      const plugins = options.plugins.map((p) => (p === coreChunks ? eagerImports : p));
      const first = await build.esbuild.build({ ...options, plugins, write: false, metafile: true });
      const inputs = first.metafile.inputs;
      const edges = (file, dynamic) => (inputs[file]?.imports ?? []).filter((i) => !i.external && (i.kind === 'dynamic-import') === dynamic && inputs[i.path]).map((i) => i.path);
      const closure = (start, withDynamic) => {
        const seen = new Set();
        const queue = [start];
        while (queue.length > 0) {
          const file = queue.pop();
          if (seen.has(file)) continue;
          seen.add(file);
          queue.push(...edges(file, false), ...(withDynamic ? edges(file, true) : []));
        }
        return seen;
      };
      const entries = Object.values(options.entryPoints).map((file) => path.relative(workDir, file));
      const contexts = entries.map((entry) => ({ loaded: closure(entry, false), reach: closure(entry, true) }));
      const awaiting = new Set(Object.keys(inputs).filter((file) => file.startsWith('src/') && TOP_LEVEL_AWAIT.test(readFileSync(path.resolve(workDir, file), 'utf8'))));
      const lazy = new Set(Object.keys(inputs).filter((file) => !awaiting.has(file)).flatMap((file) => edges(file, true)));
      for (const file of Object.keys(inputs).filter((f) => awaiting.has(f))) for (const target of edges(file, true)) lazy.delete(target);
      for (const file of lazy) {
        if (!/^src\/.*\.ts$/.test(file)) continue;
        const loaders = contexts.filter((c) => c.reach.has(file));
        const shared = [...(loaders[0]?.loaded ?? [])].filter((m) => m.startsWith('src/') && !entries.includes(m) && m !== file && loaders.every((c) => c.loaded.has(m)));
        hubs.set(path.resolve(workDir, file), shared.map((m) => `import ${JSON.stringify(path.resolve(workDir, m))};`).join(''));
      }
    }
    build.onLoad({ filter: /[\\/]src[\\/].*\.ts$/ }, (args) => browserSource(args.path, hubs.get(args.path)));
  },
};

/** esbuild options for the browser build of `entry` (a file, or `stdin` contents resolved from the root). */
export function browserBuildOptions(overrides = {}) {
  return {
    // floe.js, and the decode worker Web Workers run (src/browser.ts records its URL, beside floe.js).
    entryPoints: { floe: path.join(ROOT, 'src/browser.ts'), 'decode-worker': path.join(ROOT, 'src/engine/decode-worker-main.ts') },
    bundle: true,
    platform: 'browser',
    format: 'esm',
    // What the core loads only on first use (numcodecs codecs, S3's client, XML listings) becomes
    // chunks beside floe.js, fetched by the page when a read needs them.
    splitting: true,
    entryNames: '[name]',
    chunkNames: 'chunks/[name]-[hash]',
    target: 'es2022',
    minify: true,
    legalComments: 'none',
    loader: { '.wasm': 'binary' },
    plugins: [browserSiblings, coreChunks],
    logLevel: 'silent',
    ...overrides,
  };
}

/** Builds dist/browser/floe.js (or into `outdir`); returns esbuild's result (metafile included). */
export async function buildBrowser(outdir = path.join(ROOT, 'dist/browser')) {
  return build(browserBuildOptions({ outdir, metafile: true }));
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  await buildBrowser(process.argv[2] ? path.resolve(process.argv[2]) : undefined);
}
