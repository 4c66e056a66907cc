// Builds the viewer page that `floe serve` answers at /ui/ (issue 34) into dist/viewer/:
// index.html and viewer.css as they are in src/ui/page/, and viewer.js: src/ui/page/main.ts
// bundled with the browser build's options (scripts/build-browser.mjs: `x.browser.ts` siblings,
// zstd's .wasm inlined, what loads on first use split into chunks/ beside it), and
// decode-worker.js, the Web Worker large reads decode in.
//   node scripts/build-viewer.mjs [OUTDIR]     (default dist/viewer)
import { copyFileSync, mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';
import { browserBuildOptions, ROOT } from './build-browser.mjs';

const out = path.resolve(process.argv[2] ?? path.join(ROOT, 'dist/viewer'));
const page = path.join(ROOT, 'src/ui/page');

rmSync(path.join(out, 'chunks'), { recursive: true, force: true }); // chunk names carry hashes: no stale ones
mkdirSync(out, { recursive: true });
await build(browserBuildOptions({
  // viewer.js, and the decode pool's Web Worker beside it (main.ts records its URL).
  entryPoints: { viewer: path.join(page, 'main.ts'), 'decode-worker': path.join(ROOT, 'src/engine/decode-worker-main.ts') },
  outdir: out,
  logLevel: 'warning',
}));
for (const file of ['index.html', 'viewer.css']) copyFileSync(path.join(page, file), path.join(out, file));
