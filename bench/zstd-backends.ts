// zstd throughput of each backend that loads on this Node (native zstd-napi, Node's own
// node:zlib zstd from 22.15, the WASM fallback) through the Zarr zstd codec, on array-like data
// cut into 1 MiB chunks: half smooth float32 (a temperature-like field with a little noise), half
// random-ish int32 (small-range counts). Compress at levels 1, 3 and 9; decompress to a new buffer
// (`decode`) and into a given one (`decodeInto`, what reads do); dictionary compression of short
// virtual-chunk locations (the one dictionary use in Icechunk); memory: RSS a fresh process gains
// by loading the backend and by decoding all chunks once. MB/s of uncompressed bytes, median of
// RUNS rounds; each round runs every backend in turn, so a change in machine load hits all alike.
// Run: npx tsx bench/zstd-backends.ts [MiB]   (on another Node: PATH=<node>/bin:$PATH node --import tsx ...)
// FLOE_ZSTD does not matter: every backend that loads is measured.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { createZarrV3BytesCodec } from '../src/format/codecs/registry.ts';
import { backendAvailable, DEFAULT_ORDER, loadZstdBackend, selectZstdBackend, zstdDecode, type ZstdBackendName } from '../src/format/codecs/zstd-backend.ts';

const CHUNK = 1 << 20;
const RUNS = 5;
const LEVELS = [1, 3, 9] as const;

function makeChunks(mib: number): Uint8Array[] {
  let seed = 7;
  const random = () => (seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32;
  const chunks: Uint8Array[] = [];
  for (let c = 0; c < mib; c++) {
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
  return chunks;
}

const codecAt = (level: number) => createZarrV3BytesCodec('zstd', { level, checksum: false }, { itemSize: 4 });

/** Child mode: the RSS this process gains loading one backend, then decoding `mib` MiB once. */
function memoryProbe(which: ZstdBackendName, mib: number): void {
  globalThis.gc?.();
  const before = process.memoryUsage().rss;
  selectZstdBackend(which);
  const load = process.memoryUsage().rss - before;
  const codec = codecAt(1);
  const encoded = makeChunks(mib).map((c) => codec.encode(c));
  globalThis.gc?.();
  const start = process.memoryUsage().rss;
  let peak = start;
  for (const e of encoded) {
    codec.decode(e);
    peak = Math.max(peak, process.memoryUsage().rss);
  }
  console.log(JSON.stringify({ load, decode: peak - start }));
}

function median(times: number[]): number {
  const sorted = [...times].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

interface Task {
  readonly name: string;
  /** Work of one round for one backend; returns nothing, timed by the caller. */
  readonly run: (which: ZstdBackendName) => void;
  /** Bytes per round, for MB/s; or ops per round with `unit: 'ops'`. */
  readonly amount: number;
  readonly unit: 'MB/s' | 'k ops/s';
}

function tasks(chunks: Uint8Array[], backends: ZstdBackendName[]): Task[] {
  const total = chunks.length * CHUNK;
  const list: Task[] = [];
  const frames = new Map<ZstdBackendName, Uint8Array[]>();
  for (const level of LEVELS) {
    list.push({
      name: `compress level ${level}`,
      amount: total,
      unit: 'MB/s',
      run: (which) => {
        selectZstdBackend(which);
        const codec = codecAt(level);
        const out = chunks.map((c) => codec.encode(c));
        if (level === 1) frames.set(which, out);
      },
    });
  }
  // Every backend decodes the frames zstd-napi (or WASM) wrote, so all decode the same bytes.
  const source = (): Uint8Array[] => frames.get(backends[0]!)!;
  list.push({
    name: 'decompress (new buffer)',
    amount: total,
    unit: 'MB/s',
    run: (which) => {
      selectZstdBackend(which);
      const codec = codecAt(1);
      for (const e of source()) codec.decode(e);
    },
  });
  const into = new Uint8Array(CHUNK);
  list.push({
    name: 'decompress into a given buffer',
    amount: total,
    unit: 'MB/s',
    run: (which) => {
      selectZstdBackend(which);
      const codec = codecAt(1);
      for (const e of source()) codec.decodeInto!(e, into);
    },
  });
  const dictionary = new Uint8Array(readFileSync(new URL('../test/unit/icechunk/fixtures/locations.zdict', import.meta.url)));
  const locations = Array.from({ length: 2000 }, (_, i) => new TextEncoder().encode(`s3://earthmover-sample-data/netcdf/oisst/avhrr-only-v2.${19810101 + i}.nc`));
  const dictFrames = locations.map((l) => loadZstdBackend(backends[0]!).compress(l, 3, false, dictionary));
  list.push({
    name: 'dictionary: compress + decompress a location',
    amount: locations.length,
    unit: 'k ops/s',
    run: (which) => {
      const backend = loadZstdBackend(which);
      for (let i = 0; i < locations.length; i++) {
        backend.compress(locations[i]!, 3, false, dictionary);
        zstdDecode(dictFrames[i]!, { maxBytes: 4096, dictionary, backend });
      }
    },
  });
  return list;
}

function main(): void {
  if (process.argv[2] === '--memory-probe') return memoryProbe(process.argv[3] as ZstdBackendName, Number(process.argv[4]));
  const mib = Number(process.argv[2] ?? 32);
  const chunks = makeChunks(mib);
  const backends = DEFAULT_ORDER.filter((which) => backendAvailable(which));
  const label = (which: ZstdBackendName) => {
    const b = loadZstdBackend(which);
    return `${b.name} ${b.version}`;
  };
  const list = tasks(chunks, backends);
  const results = new Map<string, number[]>();
  for (const task of list) for (const which of backends) task.run(which); // warm-up, and level-1 frames for the decoders
  for (let round = 0; round < RUNS; round++) {
    for (const task of list) {
      for (const which of backends) {
        const start = performance.now();
        task.run(which);
        const ms = performance.now() - start;
        const key = `${task.name}|${which}`;
        results.set(key, [...(results.get(key) ?? []), ms]);
      }
    }
  }
  const rate = (task: Task, which: ZstdBackendName) => {
    const ms = median(results.get(`${task.name}|${which}`)!);
    return task.unit === 'MB/s' ? task.amount / 1e6 / (ms / 1000) : task.amount / 1000 / (ms / 1000);
  };
  console.log(`Node ${process.version}; ${mib} MiB in ${mib} chunks of 1 MiB; median of ${RUNS} interleaved rounds; load average before ${loadAverage()}`);
  console.log(`| task | ${backends.map(label).join(' | ')} |`);
  console.log(`| --- | ${backends.map(() => '---').join(' | ')} |`);
  for (const task of list) console.log(`| ${task.name} (${task.unit}) | ${backends.map((w) => rate(task, w).toFixed(task.unit === 'MB/s' ? 0 : 1)).join(' | ')} |`);
  const ratio = (which: ZstdBackendName) => (mib * CHUNK) / codecsRatio(chunks, which);
  console.log(`| compressed size, level 1 (ratio) | ${backends.map((w) => ratio(w).toFixed(3)).join(' | ')} |`);
  const memory = backends.map((which) => {
    const out = execFileSync(process.execPath, [...process.execArgv, '--expose-gc', new URL(import.meta.url).pathname, '--memory-probe', which, String(Math.min(mib, 16))], { encoding: 'utf8' });
    return JSON.parse(out.trim().split('\n').at(-1)!) as { load: number; decode: number };
  });
  const mb = (n: number) => (n / 2 ** 20).toFixed(1);
  console.log(`| RSS gained by loading it (MiB) | ${memory.map((m) => mb(m.load)).join(' | ')} |`);
  console.log(`| RSS gained decoding ${Math.min(mib, 16)} x 1 MiB once (MiB) | ${memory.map((m) => mb(m.decode)).join(' | ')} |`);
  console.log(`load average after: ${loadAverage()}`);
}

function codecsRatio(chunks: Uint8Array[], which: ZstdBackendName): number {
  selectZstdBackend(which);
  const codec = codecAt(1);
  return chunks.reduce((n, c) => n + codec.encode(c).length, 0);
}

function loadAverage(): string {
  return loadavg().map((l) => l.toFixed(2)).join(' ');
}

main();
