// The data the read benches share (bench/zarr-read.ts, bench/cold-read.ts, bench/cutouts.ts): a
// 2-d float32 array of a given size (a smooth sin*cos field plus small noise: zstd level 3 saves
// only ~12%), written by Floe to a local directory store in up to three layouts.
import { existsSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { loadavg } from 'node:os';
import path from 'node:path';
import { openStore } from '../../src/engine/api.ts';
import { ZarrArray } from '../../src/engine/array.ts';
import type { CodecMetadata } from '../../src/format/codecs/types.ts';
import type { MinimalLayout } from './minimal-core.ts';

const MiB = 2 ** 20;

export interface Layout {
  name: string;
  describe: string;
  chunkShape: [number, number];
  innerShape?: [number, number];
  codecs: CodecMetadata[];
}

const bytesCodec: CodecMetadata = { name: 'bytes', configuration: { endian: 'little' } };
const zstd3: CodecMetadata = { name: 'zstd', configuration: { level: 3, checksum: false } };

export const ALL_LAYOUTS: Layout[] = [
  { name: 'uncompressed', describe: '1024x1024 chunks (4 MiB), bytes', chunkShape: [1024, 1024], codecs: [bytesCodec] },
  { name: 'zstd', describe: '1024x1024 chunks (4 MiB), bytes + zstd 3', chunkShape: [1024, 1024], codecs: [bytesCodec, zstd3] },
  {
    name: 'sharded',
    describe: '2048x2048 shards (16 MiB) of 512x512 inner chunks (1 MiB), bytes + zstd 3; index bytes + crc32c at the end',
    chunkShape: [2048, 2048],
    innerShape: [512, 512],
    codecs: [{
      name: 'sharding_indexed',
      configuration: {
        chunk_shape: [512, 512],
        codecs: [bytesCodec, zstd3],
        index_codecs: [bytesCodec, { name: 'crc32c' }],
        index_location: 'end',
      },
    } as unknown as CodecMetadata],
  },
];

/** The layouts named in a comma-separated list, in ALL_LAYOUTS order. */
export function pickLayouts(list: string): Layout[] {
  const wanted = new Set(list.split(',').map((s) => s.trim()));
  const picked = ALL_LAYOUTS.filter((l) => wanted.has(l.name));
  if (picked.length === 0) throw new Error(`--layouts: choose from ${ALL_LAYOUTS.map((l) => l.name).join(', ')}`);
  return picked;
}

/** Square-ish, rows a multiple of the 2048-row shard so no layout has ragged edge chunks. */
export function arrayShape(sizeMb: number): { rows: number; cols: number; outBytes: number } {
  const elems = sizeMb * (MiB / 4);
  let cols = 2048;
  while (cols * 2 * cols * 2 <= elems) cols *= 2;
  const rows = Math.max(2048, Math.round(elems / cols / 2048) * 2048);
  return { rows, cols, outBytes: rows * cols * 4 };
}

export function generate(rows: number, cols: number): Float32Array {
  const v = new Float32Array(rows * cols);
  const rowWave = Float64Array.from({ length: rows }, (_, i) => 100 * Math.sin(i / 300));
  const colWave = Float64Array.from({ length: cols }, (_, j) => Math.cos(j / 400));
  let seed = 12345;
  let k = 0;
  for (let i = 0; i < rows; i++) {
    const a = rowWave[i]!;
    for (let j = 0; j < cols; j++) {
      seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
      v[k++] = a * colWave[j]! + 20 + 0.1 * (seed / 2 ** 32 - 0.5);
    }
  }
  return v;
}

export function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/**
 * Writes every layout not yet in `dir` (or all, unless `reuse`); returns the write speed (MB/s)
 * of those written. `data` is generated only when something is written.
 */
export async function writeLayouts(dir: string, sizeMb: number, layouts: readonly Layout[], reuse: boolean, data?: Float32Array): Promise<Map<string, number>> {
  const { rows, cols, outBytes } = arrayShape(sizeMb);
  const speeds = new Map<string, number>();
  mkdirSync(dir, { recursive: true });
  let values = data;
  for (const layout of layouts) {
    if (reuse && existsSync(path.join(dir, layout.name, 'zarr.json'))) continue;
    values ??= generate(rows, cols);
    const arr = await ZarrArray.create(openStore(dir, { durable: false }), `/${layout.name}`, {
      shape: [rows, cols], chunkShape: layout.chunkShape, dataType: 'float32', fillValue: 0, codecs: layout.codecs, overwrite: true,
    });
    const t0 = performance.now();
    await arr.set(undefined, values);
    speeds.set(layout.name, outBytes / 1e6 / ((performance.now() - t0) / 1000));
  }
  return speeds;
}

/** The minimal reader's description of a layout in `dir`. */
export function minimalLayout(dir: string, sizeMb: number, layout: Layout): MinimalLayout {
  const { rows, cols } = arrayShape(sizeMb);
  const m: MinimalLayout = { root: path.join(dir, layout.name), shape: [rows, cols], chunkShape: layout.chunkShape, compressed: layout.name !== 'uncompressed' };
  if (layout.innerShape) m.innerShape = layout.innerShape;
  return m;
}

export function dirBytes(dir: string): { bytes: number; files: number } {
  let bytes = 0;
  let files = 0;
  for (const e of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (e.isFile()) {
      bytes += statSync(path.join(e.parentPath ?? (e as unknown as { path: string }).path, e.name)).size;
      files++;
    }
  }
  return { bytes, files };
}

/** The 1-minute load average, two decimals. */
export const load1 = (): string => (loadavg()[0] ?? 0).toFixed(2);

export { median } from './probe-runner.ts';

/** CPU milliseconds (user + system, all threads) since `start` (process.cpuUsage()). */
export function cpuMsSince(start: NodeJS.CpuUsage): number {
  const d = process.cpuUsage(start);
  return (d.user + d.system) / 1000;
}
