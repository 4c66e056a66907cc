// Child process of bench/cold-read.ts: the FIRST full read of a fresh process (no warm-up), so it
// pays whatever start-up the reader has (codec loading, worker threads). Prints one JSON line:
// wall ms, CPU ms of the whole process during the read (all threads: getrusage), minor page
// faults, RSS before the read and the peak during it (Linux VmHWM, reset just before the read).
// Usage: tsx bench/support/cold-read-probe.ts <floe|floe-dist|floe-inline|zarrita|touch> <storeDir> <arrayName>
//   floe-inline: Floe from sources with no decode workers (decodePool: false), for comparison.
//   touch: allocate a new output of the array's size and write every page (the page-fault cost).
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import * as zarr from 'zarrita';
import { FsReadStore } from './zarrita-fs-store.ts';

const [reader, storeDir, name] = process.argv.slice(2) as [string, string, string];

function peakRss(): number {
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'));
  return m ? Number(m[1]) * 1024 : process.resourceUsage().maxRSS * 1024;
}

interface FloeModule {
  openStore(dir: string, options: { readOnly: boolean }): unknown;
  ZarrArray: { open(store: unknown, path: string): Promise<{ get(selection: undefined, options: { decodePool?: false }): Promise<{ data: unknown }> }> };
}

async function prepare(): Promise<() => Promise<number>> {
  if (reader.startsWith('floe')) {
    const entry = reader === 'floe-dist' ? path.resolve(import.meta.dirname, '../../dist/index.js') : '../../src/index.ts';
    const floe = (await import(entry)) as FloeModule;
    const arr = await floe.ZarrArray.open(floe.openStore(storeDir, { readOnly: true }), `/${name}`);
    const options = reader === 'floe-inline' ? { decodePool: false as const } : {};
    return async () => ((await arr.get(undefined, options)).data as Float32Array).byteLength;
  }
  const arr = await zarr.open(zarr.root(new FsReadStore(storeDir)).resolve(`/${name}`), { kind: 'array' });
  if (reader === 'zarrita') return async () => ((await zarr.get(arr)).data as Float32Array).byteLength;
  if (reader === 'touch') {
    const bytes = arr.shape.reduce((a, b) => a * b, 1) * 4;
    return async () => new Float32Array(bytes / 4).fill(1).byteLength;
  }
  throw new Error(`unknown reader ${reader}`);
}

const read = await prepare();
writeFileSync('/proc/self/clear_refs', '5');
const rssBefore = process.memoryUsage().rss;
const faults0 = process.resourceUsage().minorPageFault;
const cpu0 = process.cpuUsage();
const nowUs = (): number => Number(process.hrtime.bigint() / 1000n); // CLOCK_MONOTONIC, as V8's profiler
const startUs = nowUs();
const t0 = performance.now();
const outBytes = await read();
const ms = performance.now() - t0;
const windowUs = [startUs, nowUs()];
const cpu = process.cpuUsage(cpu0);
const faults = process.resourceUsage().minorPageFault - faults0;
console.log(JSON.stringify({ ms, cpuMs: (cpu.user + cpu.system) / 1000, faults, outBytes, rssBefore, peak: peakRss(), windowUs }));
process.exit(0);
