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
import { existsSync } from 'node:fs';
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
    plugins: [browserSiblings],
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
