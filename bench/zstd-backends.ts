// zstd throughput of each backend (native zstd-napi, WASM fallback) through the Zarr zstd codec,
// on 64 MiB of array-like data cut into 1 MiB chunks: half smooth float32 (a temperature-like
// field with a little noise), half random-ish int32 (small-range counts). Levels 1 and 3; MB/s of
// uncompressed bytes, median of RUNS passes over all chunks.
// Run: npx tsx bench/zstd-backends.ts [MiB]   (FLOE_ZSTD does not matter: both are measured)
import { createZarrV3BytesCodec } from '../src/format/codecs/registry.ts';
import { napiAvailable, selectZstdBackend, type ZstdBackendName } from '../src/format/codecs/zstd-backend.ts';

const MIB = Number(process.argv[2] ?? 64);
const CHUNK = 1 << 20;
const RUNS = 5;

let seed = 7;
const random = () => (seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32;
const chunks: Uint8Array[] = [];
for (let c = 0; c < MIB; c++) {
  if (c % 2 === 0) {
    const f = new Float32Array(CHUNK / 4);
    for (let i = 0; i < f.length; i++) f[i] = 273 + 20 * Math.sin((c * f.length + i) / 4000) + 5 * Math.cos(i / 90) + (random() - 0.5) * 0.05;
    chunks.push(new Uint8Array(f.buffer));
  } else {
    const n = new Int32Array(CHUNK / 4);
    for (let i = 0; i < n.length; i++) n[i] = Math.floor(random() * random() * 2000);
    chunks.push(new Uint8Array(n.buffer));
  }
}
const total = MIB * CHUNK;

function median(run: () => void): number {
  const times: number[] = [];
  for (let r = 0; r < RUNS; r++) {
    const start = performance.now();
    run();
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(RUNS / 2)]!;
}
const mbps = (ms: number) => total / 1e6 / (ms / 1000);

const backends: ZstdBackendName[] = napiAvailable() ? ['napi', 'fallback'] : ['fallback'];
const rows: { backend: string; level: number; compress: number; decompress: number; ratio: number }[] = [];
for (const level of [1, 3]) {
  for (const which of backends) {
    const info = selectZstdBackend(which);
    const codec = createZarrV3BytesCodec('zstd', { level, checksum: false }, { itemSize: 4 });
    let encoded: Uint8Array[] = chunks.map((c) => codec.encode(c)); // warm-up
    const c = median(() => {
      encoded = chunks.map((chunk) => codec.encode(chunk));
    });
    const out = new Uint8Array(CHUNK);
    for (const e of encoded) codec.decodeInto!(e, out); // warm-up
    const d = median(() => {
      for (const e of encoded) codec.decodeInto!(e, out);
    });
    const stored = encoded.reduce((n, e) => n + e.length, 0);
    rows.push({ backend: `${info.name} ${info.version}`, level, compress: mbps(c), decompress: mbps(d), ratio: total / stored });
  }
}

console.log(`${MIB} MiB in ${MIB} chunks of 1 MiB, median of ${RUNS}`);
console.log('| backend | level | compress MB/s | decompress MB/s | ratio |');
console.log('| --- | --- | --- | --- | --- |');
for (const r of rows) console.log(`| ${r.backend} | ${r.level} | ${r.compress.toFixed(0)} | ${r.decompress.toFixed(0)} | ${r.ratio.toFixed(2)} |`);
for (const level of [1, 3]) {
  const [n, w] = [rows.find((r) => r.level === level && r.backend.startsWith('zstd-napi')), rows.find((r) => r.level === level && r.backend.startsWith('zstd-wasm'))];
  if (n && w) console.log(`level ${level}: fallback/native compress ${(w.compress / n.compress).toFixed(2)}x, decompress ${(w.decompress / n.decompress).toFixed(2)}x`);
}
