// Shared fixtures for the query tests: a store that counts requests and bytes, and a small
// gridded dataset (time x lat x lon) with CF time, descending latitudes and ascending longitudes.
import { ZarrArray } from '../../src/engine/array.ts';
import { MemoryStorage } from '../../src/engine/storage/memory.ts';
import { StorageStore, type ByteRange, type ZarrStore } from '../../src/engine/store.ts';
import type { CodecMetadata } from '../../src/format/codecs/types.ts';

export interface CountedRequest {
  key: string;
  range: ByteRange | undefined;
  bytes: number;
}

/** A plain store whose get/getRange are logged, with the bytes each returned. */
export function countingStore() {
  const store = new StorageStore(new MemoryStorage());
  const log: CountedRequest[] = [];
  const get = store.get.bind(store);
  const getRange = store.getRange.bind(store);
  store.get = async (key) => {
    const b = await get(key);
    log.push({ key, range: undefined, bytes: b?.length ?? 0 });
    return b;
  };
  store.getRange = async (key, range) => {
    const b = await getRange(key, range);
    log.push({ key, range, bytes: b?.length ?? 0 });
    return b;
  };
  return { store, log, reset: () => void (log.length = 0) };
}

export function shardedCodecs(inner: number[], compressed = true, indexLocation: 'start' | 'end' = 'end'): CodecMetadata[] {
  const codecs: CodecMetadata[] = [{ name: 'bytes', configuration: { endian: 'little' } }];
  if (compressed) codecs.push({ name: 'zstd', configuration: { level: 1, checksum: false } });
  return [{
    name: 'sharding_indexed',
    configuration: {
      chunk_shape: inner, codecs, index_location: indexLocation,
      index_codecs: [{ name: 'bytes', configuration: { endian: 'little' } }, { name: 'crc32c' }],
    },
  }];
}

export const T = 48;
export const LAT = 19;
export const LON = 36;
/** Hourly from 2000-01-01T00:00Z. */
export const TIME0 = Date.UTC(2000, 0, 1);
export const lats = Float32Array.from({ length: LAT }, (_, i) => 90 - i * 10);
export const lons = Float64Array.from({ length: LON }, (_, i) => i * 10);
export const value = (t: number, y: number, x: number) => t * 10_000 + y * 100 + x;

/** temperature[time, lat, lon] sharded into [24, 10, 12] shards of [6, 5, 6] inner chunks. */
export async function weatherStore(store: ZarrStore = countingStore().store, codecs = shardedCodecs([6, 5, 6])) {
  await ZarrArray.create(store, '/time', { shape: [T], chunkShape: [T], dataType: 'float64', dimensionNames: ['time'], attributes: { units: 'hours since 2000-01-01 00:00:00' } })
    .then((a) => a.set(undefined, Float64Array.from({ length: T }, (_, i) => i)));
  await ZarrArray.create(store, '/lat', { shape: [LAT], chunkShape: [LAT], dataType: 'float32', dimensionNames: ['lat'] }).then((a) => a.set(undefined, lats));
  await ZarrArray.create(store, '/lon', { shape: [LON], chunkShape: [LON], dataType: 'float64', dimensionNames: ['lon'] }).then((a) => a.set(undefined, lons));
  const temp = await ZarrArray.create(store, '/temperature', {
    shape: [T, LAT, LON], chunkShape: [24, 10, 12], dataType: 'float32', dimensionNames: ['time', 'lat', 'lon'], codecs, fillValue: -1,
  });
  const data = new Float32Array(T * LAT * LON);
  for (let t = 0; t < T; t++) for (let y = 0; y < LAT; y++) for (let x = 0; x < LON; x++) data[(t * LAT + y) * LON + x] = value(t, y, x);
  await temp.set(undefined, data);
  return store;
}

/** The expected values of an orthogonal selection, by plain loops. */
export function expectedBox(ts: number[], ys: number[], xs: number[]): number[] {
  const out: number[] = [];
  for (const t of ts) for (const y of ys) for (const x of xs) out.push(value(t, y, x));
  return out;
}

export const range = (a: number, b: number, step = 1) => Array.from({ length: Math.max(0, Math.ceil((b - a) / step)) }, (_, i) => a + i * step);
