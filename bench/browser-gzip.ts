// Issue 31 follow-up: gzip in Chromium, fflate (what the browser build decodes gzip/zlib with,
// synchronously) against the browser's own DecompressionStream (asynchronous, native zlib), on a
// 64 MiB float32 array (about a byte of entropy a value) gzipped as 16 chunks of 4 MiB, as Floe
// reads it, and as one 64 MiB stream. Each decoder runs `--rounds` times on the page's thread,
// interleaved; outputs are checked byte for byte against the input.
//
//   npx tsx bench/browser-gzip.ts [--rounds 5]
// With --floe, through Floe's real read path instead (stage 3a): the same 64 MiB as a Zarr v2 gzip
// array of 16 chunks of 4 MiB, served over HTTP and read whole with dist/browser/floe.js, gzip
// decoded by DecompressionStream (the build's default where the browser has one) or by fflate
// (DecompressionStream deleted from the page and from decode-worker.js as served), each on the
// page's thread (decodePool: false) and on the decode pool's Web Workers; results hashed and
// compared with the input. Build first: `npm run build` (or node scripts/build-browser.mjs).
//   npx tsx bench/browser-gzip.ts --floe [--rounds 3]
// Never part of the test suite. Prints markdown (BENCHMARKS.md, "Issue 31").
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { gzipSync } from 'node:zlib';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { build } from 'esbuild';
import { launchChromium, openPage } from '../test/support/chromium.ts';

const { values: opts } = parseArgs({ options: { rounds: { type: 'string', default: '5' }, floe: { type: 'boolean', default: false } } });
const ROOT = path.resolve(import.meta.dirname, '..');
const CHUNK = 4 * 2 ** 20;
const CHUNKS = 16;

if (opts.floe) {
  await benchFloe(Number(opts.rounds));
  process.exit(0);
}

// The page's side: fflate bundled for the browser, the data made in Node and fetched.
const PAGE_JS = (await build({
  stdin: {
    contents: `
      import { gunzipSync } from 'fflate';
      const viaStream = async (bytes) => new Uint8Array(await new Response(new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip'))).arrayBuffer());
      const same = (a, b) => { if (a.length !== b.length) return false; for (let i = 0; i < a.length; i += 4093) if (a[i] !== b[i]) return false; return a[a.length - 1] === b[b.length - 1]; };
      globalThis.runBench = async (rounds) => {
        const raw = new Uint8Array(await (await fetch('/raw.bin')).arrayBuffer());
        const chunks = [];
        for (let i = 0; i < ${CHUNKS}; i++) chunks.push(new Uint8Array(await (await fetch('/chunk-' + i + '.gz')).arrayBuffer()));
        const whole = new Uint8Array(await (await fetch('/whole.gz')).arrayBuffer());
        const times = { fflateChunks: [], streamChunks: [], streamChunksParallel: [], fflateWhole: [], streamWhole: [] };
        let ok = true;
        for (let r = 0; r < rounds; r++) {
          let t = performance.now();
          const a = chunks.map((c) => gunzipSync(c));
          times.fflateChunks.push(performance.now() - t);
          t = performance.now();
          const b = [];
          for (const c of chunks) b.push(await viaStream(c));
          times.streamChunks.push(performance.now() - t);
          t = performance.now();
          const c2 = await Promise.all(chunks.map(viaStream));
          times.streamChunksParallel.push(performance.now() - t);
          t = performance.now();
          const w1 = gunzipSync(whole);
          times.fflateWhole.push(performance.now() - t);
          t = performance.now();
          const w2 = await viaStream(whole);
          times.streamWhole.push(performance.now() - t);
          for (let i = 0; i < ${CHUNKS}; i++) {
            const want = raw.subarray(i * ${CHUNK}, (i + 1) * ${CHUNK});
            ok &&= same(a[i], want) && same(b[i], want) && same(c2[i], want);
          }
          ok &&= same(w1, raw) && same(w2, raw);
        }
        return { times, ok, gzipped: whole.length, chunkBytes: chunks.reduce((n, c) => n + c.length, 0) };
      };`,
    resolveDir: ROOT, loader: 'js',
  },
  bundle: true, platform: 'browser', format: 'iife', write: false, logLevel: 'silent',
})).outputFiles[0]!.text;

let x = 12345;
const values = Float32Array.from({ length: (CHUNK * CHUNKS) / 4 }, () => {
  x = (Math.imul(x, 1103515245) + 12345) >>> 0;
  return (x >>> 24) / 4;
});
const raw = new Uint8Array(values.buffer);
const files: Record<string, Uint8Array> = { '/raw.bin': raw, '/whole.gz': gzipSync(raw, { level: 1 }) };
for (let i = 0; i < CHUNKS; i++) files[`/chunk-${i}.gz`] = gzipSync(raw.subarray(i * CHUNK, (i + 1) * CHUNK), { level: 1 });

const PAGE = '<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,"><script src="/bench.js"></script>';
const data = createServer((req, res) => {
  const body = files[req.url ?? ''];
  if (req.url === '/bench.js') return void res.writeHead(200, { 'content-type': 'text/javascript' }).end(PAGE_JS);
  if (req.url === '/') return void res.writeHead(200, { 'content-type': 'text/html' }).end(PAGE);
  if (body === undefined) return void res.writeHead(404).end();
  res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(body);
});
await new Promise<void>((resolve) => data.listen(0, '127.0.0.1', resolve));
const origin = `http://127.0.0.1:${(data.address() as AddressInfo).port}`;
const browser = await launchChromium();
try {
  const { page, problems } = await openPage(browser, `${origin}/`);
  const load = os.loadavg()[0]!.toFixed(1);
  const result = await page.evaluate((rounds) => (globalThis as unknown as { runBench: (r: number) => Promise<{ times: Record<string, number[]>; ok: boolean; gzipped: number; chunkBytes: number }> }).runBench(rounds), Number(opts.rounds));
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  console.log(`Chromium ${browser.version()}, ${opts.rounds} rounds, load average ${load} -> ${os.loadavg()[0]!.toFixed(1)}; 64 MiB raw, gzip level 1: ${result.gzipped} B whole, ${result.chunkBytes} B as ${CHUNKS} chunks; outputs equal: ${result.ok}; console errors: ${problems.length}`);
  console.log('| decoder | input | median ms | min-max ms | MB/s (median) |\n| --- | --- | ---: | ---: | ---: |');
  const rows: [string, string, string][] = [
    ['fflate gunzipSync', `${CHUNKS} x 4 MiB, one after another`, 'fflateChunks'],
    ['DecompressionStream', `${CHUNKS} x 4 MiB, one after another`, 'streamChunks'],
    ['DecompressionStream', `${CHUNKS} x 4 MiB, all at once`, 'streamChunksParallel'],
    ['fflate gunzipSync', '64 MiB, one stream', 'fflateWhole'],
    ['DecompressionStream', '64 MiB, one stream', 'streamWhole'],
  ];
  for (const [name, input, key] of rows) {
    const t = result.times[key]!;
    console.log(`| ${name} | ${input} | ${median(t).toFixed(0)} | ${Math.min(...t).toFixed(0)}-${Math.max(...t).toFixed(0)} | ${((64 * 2 ** 20) / 1e6 / (median(t) / 1000)).toFixed(0)} |`);
  }
  await page.close();
} finally {
  await browser.close();
  await new Promise<void>((resolve) => data.close(() => resolve()));
}

/** The page's side of --floe: `floe` is the build's module, `mode` 'main' or 'pool'. */
function floeRead(): string {
  return `
  const array = await floe.openArray(floe.openStore(location.origin + '/data/big.zarr'));
  const options = mode === 'main' ? { decodePool: false } : {};
  let requests = 0;
  const post = Worker.prototype.postMessage;
  Worker.prototype.postMessage = function (message, transfer) {
    if (message && message.bytes) requests++;
    return post.call(this, message, transfer);
  };
  // Pooled: the first 64 MiB read starts the workers; read until one takes chunks (warm-up).
  for (let i = 0; mode === 'pool' && requests === 0 && i < 20; i++) {
    await array.get(undefined, options);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  const times = [];
  const digests = new Set();
  for (let r = 0; r < rounds; r++) {
    const t = performance.now();
    const whole = await array.get(undefined, options);
    times.push(performance.now() - t);
    const bytes = new Uint8Array(whole.data.buffer, whole.data.byteOffset, whole.data.byteLength);
    digests.add(Array.from(new Uint8Array(await crypto.subtle.digest('SHA-256', bytes)), (b) => b.toString(16).padStart(2, '0')).join(''));
  }
  return { times, digests: [...digests], requests, stream: typeof DecompressionStream };
`;
}

async function benchFloe(rounds: number): Promise<void> {
  const { createHash } = await import('node:crypto');
  const { existsSync, readFileSync } = await import('node:fs');
  const dist = path.join(ROOT, 'dist/browser');
  if (!existsSync(path.join(dist, 'floe.js'))) throw new Error('dist/browser/floe.js is missing: run node scripts/build-browser.mjs first');
  let seed = 12345;
  const values = Float32Array.from({ length: (CHUNK * CHUNKS) / 4 }, () => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return (seed >>> 24) / 4;
  });
  const raw = new Uint8Array(values.buffer);
  const digest = createHash('sha256').update(raw).digest('hex');
  const side = 1024;
  const zarray = { zarr_format: 2, shape: [CHUNKS, side, side], chunks: [1, side, side], dtype: '<f4', compressor: { id: 'gzip', level: 1 }, fill_value: 0, order: 'C', filters: null };
  const served: Record<string, Uint8Array | string> = { '/data/big.zarr/.zarray': JSON.stringify(zarray), '/floe-fflate/no-stream.js': 'delete globalThis.DecompressionStream;\n' };
  let stored = 0;
  for (let i = 0; i < CHUNKS; i++) {
    const chunk = gzipSync(raw.subarray(i * CHUNK, (i + 1) * CHUNK), { level: 1 });
    stored += chunk.length;
    served[`/data/big.zarr/${i}.0.0`] = chunk;
  }
  served['/floe-fflate/decode-worker.js'] = `import './no-stream.js';\n${readFileSync(path.join(dist, 'decode-worker.js'), 'utf8')}`;
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x').pathname;
    if (url === '/') return void res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,">');
    const body = served[url];
    if (body !== undefined) return void res.writeHead(200, { 'content-type': url.endsWith('.js') ? 'text/javascript' : 'application/octet-stream' }).end(body);
    const m = /^\/floe(?:-fflate)?\/((?:chunks\/)?[\w.-]+\.js)$/.exec(url);
    if (m && existsSync(path.join(dist, m[1]!))) return void res.writeHead(200, { 'content-type': 'text/javascript' }).end(readFileSync(path.join(dist, m[1]!)));
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const browser = await launchChromium();
  const load = os.loadavg()[0]!.toFixed(1);
  const rows: string[] = [];
  try {
    for (const mode of ['main', 'pool'] as const) {
      for (const decoder of ['DecompressionStream', 'fflate'] as const) {
        const { page, problems } = await openPage(browser, `${origin}/`);
        const base = decoder === 'fflate' ? '/floe-fflate' : '/floe';
        if (decoder === 'fflate') await page.evaluate('delete globalThis.DecompressionStream');
        const result = (await page.evaluate(
          ({ body, base, mode, rounds }) => new Function('mode', 'rounds', `return import('${base}/floe.js').then((floe) => (async () => {${body}})());`)(mode, rounds),
          { body: floeRead(), base, mode, rounds },
        )) as { times: number[]; digests: string[]; requests: number; stream: string };
        const ok = result.digests.length === 1 && result.digests[0] === digest;
        const t = result.times;
        const median = [...t].sort((a, b) => a - b)[Math.floor(t.length / 2)]!;
        rows.push(`| ${decoder} | ${mode === 'main' ? "page's thread (decodePool: false)" : `decode pool (${result.requests} chunks to workers)`} | ${median.toFixed(0)} | ${Math.min(...t).toFixed(0)}-${Math.max(...t).toFixed(0)} | ${((64 * 2 ** 20) / 1e6 / (median / 1000)).toFixed(0)} | ${ok}${problems.some((p) => !p.includes('status of 404')) ? `, console errors: ${problems.join('; ')}` : ''} |`);
        await page.close();
      }
    }
  } finally {
    await browser.close();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
  console.log(`Chromium ${browser.version()}, Floe's read path (dist/browser), ${rounds} rounds each, load average ${load} -> ${os.loadavg()[0]!.toFixed(1)}; a 64 MiB Zarr v2 gzip (level 1) array, 16 chunks of 4 MiB (${stored} B stored), read whole over loopback HTTP`);
  console.log('| gzip decoder | where | median ms | min-max ms | MB/s (median) | equal to the input |\n| --- | --- | ---: | ---: | ---: | --- |');
  for (const row of rows) console.log(row);
}
