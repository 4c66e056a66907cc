// Child process of bench/zarr-read.ts: one full read in a fresh process, so the peak RSS belongs
// to that read alone; also the target of --cpu-prof runs. The peak is Linux's VmHWM, reset after
// the warm-up (clear_refs 5). Not resourceUsage().maxRSS: Linux carries it over from the parent
// through fork + exec, so it would report the (large) benchmark process's RSS.
// Usage: tsx bench/support/full-read-probe.ts <floe|zarrita> <storeDir> <arrayName> [repeat]
import { readFileSync, writeFileSync } from 'node:fs';
import * as zarr from 'zarrita';
import { openStore } from '../../src/engine/api.ts';
import { ZarrArray } from '../../src/engine/array.ts';
import { slice } from '../../src/engine/selection.ts';
import { FsReadStore } from './zarrita-fs-store.ts';

const [reader, storeDir, name, repeatArg] = process.argv.slice(2);

/** Peak RSS since the last reset (bytes); maxRSS where /proc is missing. */
function peakRss(): number {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'));
    if (m) return Number(m[1]) * 1024;
  } catch {}
  return process.resourceUsage().maxRSS * 1024;
}

function resetPeakRss(): void {
  try {
    writeFileSync('/proc/self/clear_refs', '5');
  } catch {}
}

const repeat = Number(repeatArg ?? 1);
const ms: number[] = [];
let outBytes = 0;
let rssBefore = 0;
let maxRssBefore = 0;
let windowStartUs = 0;
const nowUs = (): number => Number(process.hrtime.bigint() / 1000n); // CLOCK_MONOTONIC, as V8's profiler

if (reader === 'floe') {
  const arr = await ZarrArray.open(openStore(storeDir!, { readOnly: true }), `/${name}`);
  const [ch, cw] = arr.chunkShape as [number, number];
  await arr.get([slice(0, ch), slice(0, 2 * cw)]); // warm-up: loads codecs (a small read: no workers start)
  resetPeakRss();
  rssBefore = process.memoryUsage().rss;
  maxRssBefore = peakRss();
  windowStartUs = nowUs();
  for (let i = 0; i < repeat; i++) {
    const t = performance.now();
    const r = await arr.get();
    ms.push(performance.now() - t);
    outBytes = r.data.length * 4;
  }
} else if (reader === 'zarrita') {
  const arr = await zarr.open(zarr.root(new FsReadStore(storeDir!)).resolve(`/${name}`), { kind: 'array' });
  await zarr.get(arr, [zarr.slice(0, 64), zarr.slice(0, 64)]);
  resetPeakRss();
  rssBefore = process.memoryUsage().rss;
  maxRssBefore = peakRss();
  windowStartUs = nowUs();
  for (let i = 0; i < repeat; i++) {
    const t = performance.now();
    const r = await zarr.get(arr);
    ms.push(performance.now() - t);
    outBytes = (r.data as Float32Array).byteLength;
  }
} else {
  throw new Error(`unknown reader ${reader}`);
}
const windowUs = [windowStartUs, nowUs()];
const maxRssAfter = peakRss();
console.log(JSON.stringify({ ms, outBytes, rssBefore, maxRssBefore, maxRssAfter, windowUs }));
process.exit(0);
