// Builds the viewer page that `floe serve` answers at /ui/ (issue 34) into dist/viewer/:
// index.html and viewer.css as they are in src/ui/page/, viewer.js bundled by esbuild for the
// browser from src/ui/page/main.ts, and zstd.wasm (Icechunk's metadata files are zstd frames).
// Usage: node scripts/build-viewer.mjs [outDir]   (default dist/viewer)
//
// Until the browser build (issue 31, stage 2) keeps Node out of src/browser.ts's graph, Node
// builtins the read path names but never calls over HTTP are replaced by stubs that throw when
// used, and the zstd fallback reads its .wasm from what the page fetched (BROWSER_SHIMS below).
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const out = path.resolve(process.argv[2] ?? path.join(root, 'dist/viewer'));
const page = path.join(root, 'src/ui/page');
const zstdWeb = path.join(root, 'node_modules/@bokuweb/zstd-wasm/dist/web');

const builtins = new Set(builtinModules.flatMap((m) => [m, `node:${m}`]));
/**
 * A builtin's module with every export it has in Node, each inert: calls and property reads give
 * the same inert value, so module-level setup (a temp-file prefix, `createRequire`) evaluates;
 * the require `createRequire` returns throws, as for a package that is not installed.
 */
async function stub(name) {
  const names = Object.keys(await import(name)).filter((n) => /^[A-Za-z_$][\w$]*$/.test(n) && n !== 'default');
  return [
    `const fail = () => { throw new Error(${JSON.stringify(`${name} is not available in a browser`)}); };`,
    'const inert = new Proxy(function () {}, { apply: () => inert, construct: () => inert,',
    "  get: (_, key) => (key === Symbol.toPrimitive ? () => 'unavailable' : key === 'then' ? undefined : inert) });",
    ...names.map((n) => `export const ${n} = ${n === 'createRequire' ? '() => fail' : 'inert'};`),
    'export default inert;',
  ].join('\n');
}

/** @type {import('esbuild').Plugin} */
const BROWSER_SHIMS = {
  name: 'floe-browser-shims',
  setup(b) {
    b.onResolve({ filter: /.*/ }, (args) => {
      if (builtins.has(args.path)) return { path: args.path, namespace: 'node-stub' };
      if (/^(zstd-napi|lz4-napi|@node-rs\/crc32|@napi-rs\/lzma|better-sqlite3|@aws-sdk\/.*)$/.test(args.path)) return { path: args.path, namespace: 'package-stub' };
      if (args.path === './zstd-wasm.ts' && args.importer.endsWith(path.join('codecs', 'zstd-backend.ts'))) return { path: 'zstd-wasm-web', namespace: 'zstd-web' };
      return undefined;
    });
    b.onLoad({ filter: /.*/, namespace: 'node-stub' }, async (args) => ({ contents: await stub(args.path), loader: 'js' }));
    // Packages with native code: loading one fails, as when it is not installed (callers fall back).
    b.onLoad({ filter: /.*/, namespace: 'package-stub' }, (args) => ({ contents: `throw new Error(${JSON.stringify(`${args.path} is not available in a browser`)});`, loader: 'js' }));
    b.onLoad({ filter: /.*/, namespace: 'zstd-web' }, () => ({
      resolveDir: path.join(root, 'src/format/codecs'),
      loader: 'ts',
      contents: `
        import { Module } from ${JSON.stringify(path.join(zstdWeb, 'zstd.js'))};
        import { wasmBackendOver } from './zstd-wasm-driver.ts';
        export function wasmBackend() {
          const wasm = (globalThis as { floeZstdWasm?: Uint8Array }).floeZstdWasm;
          if (!wasm) throw new Error('zstd.wasm was not fetched before the first read');
          return wasmBackendOver(Module as never, () => wasm, 'web');
        }`,
    }));
  },
};

mkdirSync(out, { recursive: true });
const result = await build({
  entryPoints: [path.join(page, 'main.ts')],
  bundle: true, platform: 'browser', format: 'esm', target: 'es2022', minify: process.env.FLOE_VIEWER_MINIFY !== '0',
  legalComments: 'none', write: false, logLevel: 'warning', plugins: [BROWSER_SHIMS],
  define: { 'process.env.NODE_ENV': '"production"', 'process.platform': '"browser"' },
});
writeFileSync(path.join(out, 'viewer.js'), result.outputFiles[0].text);
for (const file of ['index.html', 'viewer.css']) copyFileSync(path.join(page, file), path.join(out, file));
copyFileSync(path.join(zstdWeb, 'zstd.wasm'), path.join(out, 'zstd.wasm'));
if (process.env.FLOE_VIEWER_SIZES === '1') for (const f of ['viewer.js', 'index.html', 'viewer.css', 'zstd.wasm']) console.log(f, readFileSync(path.join(out, f)).length);
