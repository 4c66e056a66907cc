// Issue 31 follow-up: gzip in Chromium, fflate (what the browser build decodes gzip/zlib with,
// synchronously) against the browser's own DecompressionStream (asynchronous, native zlib), on a
// 64 MiB float32 array (about a byte of entropy a value) gzipped as 16 chunks of 4 MiB, as Floe
// reads it, and as one 64 MiB stream. Each decoder runs `--rounds` times on the page's thread,
// interleaved; outputs are checked byte for byte against the input.
//
//   npx tsx bench/browser-gzip.ts [--rounds 5]
// Never part of the test suite. Prints markdown (BENCHMARKS.md, "Issue 31").
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { gzipSync } from 'node:zlib';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { build } from 'esbuild';
import { launchChromium, openPage } from '../test/support/chromium.ts';

const { values: opts } = parseArgs({ options: { rounds: { type: 'string', default: '5' } } });
const ROOT = path.resolve(import.meta.dirname, '..');
const CHUNK = 4 * 2 ** 20;
const CHUNKS = 16;

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
