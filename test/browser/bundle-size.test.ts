// Issue 31's size budget for the browser build, in gzipped bytes (gzip -9), checked on every run:
// the core (floe.js and the chunks it imports, which a page loads before its first read: the
// read path, the query DSL and zstd's WASM build inlined), what the decode worker adds, and each
// codec chunk loaded on first use (numcodecs' codecs, Blosc, bz2, LZMA, fflate). Side by side, for
// the record (BENCHMARKS.md, "Issue 31"): zarrita bundled the same way, and the reference
// Icechunk's WASM build (@earthmover/icechunk-wasm32-wasi), neither checked against a budget.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { browserBuildOptions, EAGER_IN_BROWSER, ROOT } from '../../scripts/build-browser.mjs';
import { buildSizes, type BuildSizes } from '../support/bundle-sizes.ts';

const KiB = 1024;
/**
 * The budgets (measured at stage 2: core 243 KiB of which 113 KiB is the inlined zstd .wasm; worker
 * 1.2 KiB; the largest codec chunk 15.2 KiB). Stage 3 made fflate, HTTP's request layer and the
 * label lookup part of the core (a page loaded them before its first read anyway) and the core a
 * few files instead of ~50: at most `coreFiles` (scripts/build-browser.mjs, coreChunks).
 */
export const BUDGETS = { core: 256 * KiB, worker: 4 * KiB, codecChunk: 24 * KiB, coreFiles: 10 } as const;

const OUTDIR = path.join(ROOT, 'dist/browser-size-check');
let sizes: BuildSizes | undefined;

async function measured(): Promise<BuildSizes> {
  if (sizes) return sizes;
  const result = await build(browserBuildOptions({ write: false, outdir: OUTDIR, metafile: true, absWorkingDir: ROOT }));
  sizes = buildSizes(OUTDIR, result.outputFiles!, result.metafile!, ROOT);
  return sizes;
}

// seek-bzip (bz2's decoder) and snappy-web.ts (Blosc's snappy) are chunks of their own, fetched
// when bz2 and Blosc load. fflate is in the core (EAGER_IN_BROWSER: a page has no node:zlib).
const CODEC_CHUNK = /^(src\/format\/codecs\/(numcodecs\/[\w-]+|blosc|bz2|lzma|blosc\/snappy-web)\.ts|(.*\/)?node_modules\/seek-bzip\/lib\/index\.js)$/;

describe('the browser build\'s size budget (gzipped)', () => {
  it(`keeps the core under ${BUDGETS.core / KiB} KiB in at most ${BUDGETS.coreFiles} files, the decode worker's own code under ${BUDGETS.worker / KiB} KiB, each codec chunk under ${BUDGETS.codecChunk / KiB} KiB`, async () => {
    const s = await measured();
    const core = s.closure('floe.js');
    const worker = [...s.closure('decode-worker.js')].filter((file) => !core.has(file));
    const codecs = [...s.outputs.values()].filter((o) => o.entryPoint !== undefined && CODEC_CHUNK.test(o.entryPoint));
    const codecSizes = Object.fromEntries(codecs.map((o) => [o.entryPoint!, s.gzip([...s.closure(o.file)].filter((file) => !core.has(file)))]));
    console.log(`[bundle] core ${s.gzip(core)} B gzipped (${core.size} files), decode worker +${s.gzip(worker)} B, codec chunks ${JSON.stringify(codecSizes)}`);
    expect(s.gzip(core)).toBeLessThanOrEqual(BUDGETS.core);
    expect(core.size).toBeLessThanOrEqual(BUDGETS.coreFiles);
    // What a read takes anyway is in the core, not fetched on first use one round trip later.
    const lazy = new Set([...s.outputs.values()].flatMap((o) => (o.entryPoint !== undefined && !core.has(o.file) ? [o.entryPoint] : [])));
    for (const file of EAGER_IN_BROWSER) expect(lazy.has(file), file).toBe(false);
    expect(lazy.has('src/txn/commit.ts') && lazy.has('src/engine/cf-read.ts')).toBe(true); // writing and CF stay lazy
    expect(s.gzip(worker)).toBeLessThanOrEqual(BUDGETS.worker);
    expect(codecs.length).toBeGreaterThanOrEqual(18); // every numcodecs codec, Blosc, snappy, bz2, seek-bzip, LZMA: split, not in the core
    expect(Object.entries(codecSizes).filter(([, bytes]) => bytes > BUDGETS.codecChunk)).toEqual([]);
  }, 60_000);

  it('inlines the zstd build whose version zstd-host.browser.ts names', () => {
    const version = (JSON.parse(readFileSync(path.join(ROOT, 'node_modules/@bokuweb/zstd-wasm/package.json'), 'utf8')) as { version: string }).version;
    expect(readFileSync(path.join(ROOT, 'src/format/codecs/zstd-host.browser.ts'), 'utf8')).toContain(`const VERSION = '${version}';`);
  });

  it('reports zarrita (esbuild, same options) and the reference\'s WASM build side by side', async () => {
    const zarrita = await build({
      stdin: { contents: `export * from 'zarrita';`, resolveDir: ROOT, loader: 'js' },
      bundle: true, platform: 'browser', format: 'esm', splitting: true, outdir: path.join(ROOT, 'dist/zarrita-size-check'), minify: true, write: false, metafile: true, logLevel: 'silent',
    });
    const z = buildSizes(path.join(ROOT, 'dist/zarrita-size-check'), zarrita.outputFiles, zarrita.metafile, ROOT);
    const zEntry = [...z.outputs.keys()].find((file) => z.outputs.get(file)!.entryPoint !== undefined && !file.includes('/'))!;
    const reference = path.join(ROOT, 'node_modules/@earthmover/icechunk-wasm32-wasi');
    const wasm = readFileSync(path.join(reference, 'icechunk.wasm32-wasi.wasm'));
    const glue = readFileSync(path.join(reference, 'icechunk.wasi-browser.js'));
    const s = await measured();
    const figures = {
      floeCore: s.gzip(s.closure('floe.js')),
      floeAll: s.gzip(s.outputs.keys()),
      zarritaCore: z.gzip(z.closure(zEntry)),
      zarritaAll: z.gzip(z.outputs.keys()),
      referenceWasm: gzipSync(wasm, { level: 9 }).length,
      referenceWasmRaw: wasm.length,
      referenceGlue: gzipSync(glue, { level: 9 }).length,
    };
    console.log(`[bundle] side by side (gzipped bytes): ${JSON.stringify(figures)}`);
    expect(figures.zarritaCore).toBeGreaterThan(0);
    expect(figures.referenceWasm).toBeGreaterThan(figures.floeCore);
  }, 60_000);
});
