// Query benchmark (issue 7): a 1-day x 1 degree box out of a year of hourly 0.25-degree global
// float32 data (time x lat x lon = 8760 x 721 x 1440, ~36 GB dense), sharded. Floe's declarative
// query (labels -> index ranges -> shard index -> coalesced ranges) against zarrita slicing the
// same box (after the same label lookups done by hand on coordinates it reads itself), in one run,
// over one counted in-memory store, optionally with a simulated per-request latency.
//
// Only the shards the box touches are generated (plus the coordinate arrays): the array's
// metadata declares the full shape, every other shard is simply absent, which neither reader
// fetches. `--hours` shrinks the time dimension (default 8760, a full year).
// Run: npx tsx bench/query.ts [--hours 8760] [--day 100] [--degrees 1] [--latency-ms 0] [--reps 5]
import { parseArgs } from 'node:util';
import * as zarr from 'zarrita';
import { ZarrArray } from '../src/engine/array.ts';
import { slice } from '../src/engine/selection.ts';
import { MemoryStorage } from '../src/engine/storage/memory.ts';
import { StorageStore, type ByteRange } from '../src/engine/store.ts';
import { ReadCaches, query } from '../src/query/index.ts';

const { values: args } = parseArgs({
  options: {
    hours: { type: 'string', default: '8760' },
    day: { type: 'string', default: '100' },
    'latency-ms': { type: 'string', default: '0' },
    reps: { type: 'string', default: '5' },
    degrees: { type: 'string', default: '1' },
  },
});
const HOURS = Number(args.hours);
const DAY = Number(args.day);
const LATENCY = Number(args['latency-ms']);
const REPS = Number(args.reps);
const [NLAT, NLON] = [721, 1440];
const SHARD = [168, 240, 240]; // a week x 60 x 60 degrees
const INNER = [24, 30, 30]; // a day x 7.5 x 7.5 degrees, ~86 KB before zstd
const DEG = Number(args.degrees);
const BOX = { lat: [10, 10 + DEG], lon: [20, 20 + DEG] } as const;
if (!((DAY + 1) * 24 <= HOURS)) throw new Error(`--day ${DAY} is outside ${HOURS} hours`);

/** Counts requests and bytes; adds a fixed latency per request to mimic object storage. */
class CountingStore extends StorageStore {
  requests = 0;
  bytes = 0;
  reset(): void {
    this.requests = 0;
    this.bytes = 0;
  }
  private async count(p: Promise<Uint8Array | undefined>): Promise<Uint8Array | undefined> {
    if (LATENCY > 0) await new Promise((r) => setTimeout(r, LATENCY));
    const b = await p;
    this.requests++;
    this.bytes += b?.length ?? 0;
    return b;
  }
  override get(key: string): Promise<Uint8Array | undefined> {
    return this.count(super.get(key));
  }
  override getRange(key: string, range: ByteRange): Promise<Uint8Array | undefined> {
    return this.count(super.getRange(key, range));
  }
}

const store = new CountingStore(new MemoryStorage());
const t0 = DAY * 24;
const latIdx = (lat: number) => Math.round((90 - lat) / 0.25);
const lonIdx = (lon: number) => Math.round(lon / 0.25);
const box = { t: [t0, t0 + 24], y: [latIdx(BOX.lat[1]), latIdx(BOX.lat[0]) + 1], x: [lonIdx(BOX.lon[0]), lonIdx(BOX.lon[1]) + 1] };

async function generate(): Promise<void> {
  const started = performance.now();
  const coord = async (name: string, values: Float64Array, attributes = {}) =>
    (await ZarrArray.create(store, `/${name}`, { shape: [values.length], chunkShape: [values.length], dataType: 'float64', dimensionNames: [name], attributes })).set(undefined, values);
  await coord('time', Float64Array.from({ length: HOURS }, (_, i) => i), { units: 'hours since 2001-01-01 00:00:00', calendar: 'standard' });
  await coord('lat', Float64Array.from({ length: NLAT }, (_, i) => 90 - i * 0.25));
  await coord('lon', Float64Array.from({ length: NLON }, (_, i) => i * 0.25));
  const temp = await ZarrArray.create(store, '/t2m', {
    shape: [HOURS, NLAT, NLON], chunkShape: SHARD, dataType: 'float32', dimensionNames: ['time', 'lat', 'lon'], fillValue: 'NaN',
    codecs: [{ name: 'sharding_indexed', configuration: {
      chunk_shape: INNER, index_location: 'end',
      codecs: [{ name: 'bytes', configuration: { endian: 'little' } }, { name: 'zstd', configuration: { level: 3, checksum: false } }],
      index_codecs: [{ name: 'bytes', configuration: { endian: 'little' } }, { name: 'crc32c' }],
    } }],
  });
  // Every shard the box touches, whole, with smooth values plus noise (compresses like real fields).
  const from = [box.t, box.y, box.x].map(([a], d) => Math.floor(a! / SHARD[d]!) * SHARD[d]!);
  const to = [box.t, box.y, box.x].map(([, b], d) => Math.min(Math.ceil(b! / SHARD[d]!) * SHARD[d]!, [HOURS, NLAT, NLON][d]!));
  const shape = to.map((b, d) => b - from[d]!);
  const data = new Float32Array(shape[0]! * shape[1]! * shape[2]!);
  let k = 0;
  for (let t = from[0]!; t < to[0]!; t++) for (let y = from[1]!; y < to[1]!; y++) for (let x = from[2]!; x < to[2]!; x++) {
    data[k++] = Math.fround(280 + 20 * Math.cos(y / 120) + 5 * Math.sin((t + x / 4) / 24 * 2 * Math.PI) + ((k * 2654435761) % 1000) / 1000);
  }
  await temp.set(from.map((a, d) => slice(a, to[d]!)), data);
  console.log(`generated ${shape.join(' x ')} elements (${(data.byteLength / 2 ** 20).toFixed(0)} MiB) in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

interface Run {
  requests: number;
  bytes: number;
  ms: number;
  data: Float32Array;
}

async function measure(fn: () => Promise<Float32Array>): Promise<Run> {
  const times: number[] = [];
  let last: Run | undefined;
  for (let i = 0; i < REPS; i++) {
    store.reset();
    const t = performance.now();
    const data = await fn();
    times.push(performance.now() - t);
    last = { requests: store.requests, bytes: store.bytes, ms: 0, data };
  }
  times.sort((a, b) => a - b);
  return { ...last!, ms: times[Math.floor(times.length / 2)]! };
}

const day = (h: number) => new Date(Date.UTC(2001, 0, 1) + (t0 + h) * 3_600_000);
const floeQuery = (caches?: ReadCaches) =>
  query(store, { caches }).from('/t2m', 'float32').where('time', 'between', [day(0), day(23)]).where('lat', 'between', [BOX.lat[0], BOX.lat[1]]).where('lon', 'between', [BOX.lon[0], BOX.lon[1]]);

async function zarritaBox(withLabels: boolean): Promise<Float32Array> {
  const root = zarr.root(store);
  let [t, y, x] = [box.t, box.y, box.x];
  if (withLabels) {
    // The same label lookups Floe does, by hand: read each coordinate whole and search it.
    const read = async (name: string) => (await zarr.get(await zarr.open(root.resolve(name), { kind: 'array' }))).data as Float64Array;
    const [times, lats, lons] = await Promise.all([read('time'), read('lat'), read('lon')]);
    const between = (v: Float64Array, lo: number, hi: number) => {
      const idx = [...v.keys()].filter((i) => v[i]! >= lo && v[i]! <= hi);
      return [idx[0]!, idx[idx.length - 1]! + 1];
    };
    [t, y, x] = [between(times, t0, t0 + 23), between(lats, BOX.lat[0], BOX.lat[1]), between(lons, BOX.lon[0], BOX.lon[1])];
  }
  const arr = await zarr.open(root.resolve('t2m'), { kind: 'array' });
  const out = await zarr.get(arr, [zarr.slice(t[0]!, t[1]!), zarr.slice(y[0]!, y[1]!), zarr.slice(x[0]!, x[1]!)]);
  return out.data as Float32Array;
}

await generate();
const { text } = await floeQuery().explain();
console.log(`\n${text}\n`);
const caches = new ReadCaches();
// Warm the caches: the first read keeps encoded bytes, the second (now hot) the decoded chunks.
await floeQuery(caches).execute();
await floeQuery(caches).execute();
const rows: [string, Run][] = [
  ['Floe query (labels, cold)', await measure(async () => (await floeQuery().execute()).data)],
  ['Floe query (labels, warm caches)', await measure(async () => (await floeQuery(caches).execute()).data)],
  ['zarrita slice (labels by hand)', await measure(() => zarritaBox(true))],
  ['zarrita slice (indices known)', await measure(() => zarritaBox(false))],
];
const reference = rows[0]![1].data;
for (const [name, r] of rows) {
  if (r.data.length !== reference.length || r.data.some((v, i) => !Object.is(v, reference[i]))) throw new Error(`${name} returned different data`);
}
console.log(`box: ${reference.length} values (${box.t[1]! - box.t[0]!} x ${box.y[1]! - box.y[0]!} x ${box.x[1]! - box.x[0]!}); time ${HOURS} h; latency ${LATENCY} ms/request; median of ${REPS}`);
const zarrita = rows[2]![1];
const ratio = (a: number, b: number) => (b === 0 ? '-' : (a / b).toFixed(2));
console.log('| reader | requests | bytes | ms | vs zarrita (labels by hand): requests, bytes, ms |');
console.log('|---|---:|---:|---:|---:|');
for (const [name, r] of rows) {
  console.log(`| ${name} | ${r.requests} | ${r.bytes} | ${r.ms.toFixed(1)} | ${ratio(r.requests, zarrita.requests)}, ${ratio(r.bytes, zarrita.bytes)}, ${ratio(r.ms, zarrita.ms)} |`);
}
