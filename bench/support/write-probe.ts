// One Floe (or zarrita) whole-array write in a fresh process, for profiles and syscall counts:
//   node --import tsx bench/support/write-probe.ts floe|zarrita DIR SIZE_MB [layout] [durability]
// Prints {"ms": wall, "cpuMs": user+system, "windowUs": [start, end] (for cpuprofile-top)} of the set call.
import { mkdirSync, rmSync } from 'node:fs';
import * as zarr from 'zarrita';
import FileSystemStore from '@zarrita/storage/fs';
import { openStore } from '../../src/engine/api.ts';
import { ZarrArray } from '../../src/engine/array.ts';
import type { CodecMetadata } from '../../src/format/codecs/types.ts';
import type { Durability } from '../../src/engine/storage/fs.ts';

const [who = 'floe', dir = '.bench-data/write-probe', sizeArg = '256', layout = 'uncompressed', durability = 'atomic'] = process.argv.slice(2);
const cols = 4096;
const rows = (Number(sizeArg) * 2 ** 20) / 4 / cols;
const data = new Float32Array(rows * cols);
for (let i = 0; i < data.length; i++) data[i] = Math.sin(i / 1000) * 100 + (i % 7) * 0.01;
const codecs: CodecMetadata[] = [{ name: 'bytes', configuration: { endian: 'little' } }];
if (layout === 'zstd') codecs.push({ name: 'zstd', configuration: { level: 3, checksum: false } });
rmSync(dir, { recursive: true, force: true });
mkdirSync(dir, { recursive: true });
const shape = [rows, cols];
const chunkShape = [1024, 1024];
let set: () => Promise<unknown>;
if (who === 'floe') {
  const arr = await ZarrArray.create(openStore(dir, { durability: durability as Durability }), '/', { shape, chunkShape, dataType: 'float32', fillValue: 0, codecs });
  set = () => arr.set(undefined, data);
} else {
  const arr = await zarr.create(zarr.root(new FileSystemStore(dir)), { shape, chunkShape, dtype: 'float32', fillValue: 0, codecs: codecs as unknown as zarr.CodecMetadata[] });
  set = () => zarr.set(arr, null, { data, shape, stride: [cols, 1] });
}
const nowUs = (): number => Number(process.hrtime.bigint() / 1000n); // CLOCK_MONOTONIC, as V8's profiler
const startUs = nowUs();
const cpu0 = process.cpuUsage();
const t0 = performance.now();
await set();
const ms = performance.now() - t0;
const windowUs = [startUs, nowUs()];
const cpu = process.cpuUsage(cpu0);
rmSync(dir, { recursive: true, force: true });
console.log(JSON.stringify({ ms, cpuMs: (cpu.user + cpu.system) / 1000, windowUs }));
