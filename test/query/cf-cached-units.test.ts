// Issue 33: a decoding query over cached units (a hot array: src/query/execute/executor.ts reads it
// unit by unit from the decoded-chunk cache) decodes each unit's part as it is copied into the
// result (cf-results.ts unitDecoder), with no stored-type result: the same bits as a cold query
// and as one that decodes after the read (keepStored).
import { describe, expect, it } from 'vitest';
import { ReadCaches } from '../../src/cache/read-caches.ts';
import { ZarrArray } from '../../src/engine/array.ts';
import { MemoryStorage } from '../../src/engine/storage/memory.ts';
import { StorageStore } from '../../src/engine/store.ts';
import type { JsonValue } from '../../src/format/json.ts';
import { query } from '../../src/query/index.ts';

const bits = (a: ArrayBufferView) => Buffer.from(a.buffer, a.byteOffset, a.byteLength);

describe("decode: 'cf' queries over cached units", () => {
  it('decode each unit as it is copied, bit for bit as a cold query and as decoding after the read', async () => {
    const store = new StorageStore(new MemoryStorage());
    const cases: [string, Record<string, JsonValue>, 'float32' | 'float64'][] = [
      ['/p64', { scale_factor: 0.01, add_offset: 273.15, _FillValue: -32767, missing_value: [7, -7] }, 'float64'],
      ['/p32', { scale_factor: 0.1, _FillValue: -1 }, 'float32'],
    ];
    for (const [path, attributes] of cases) {
      const a = await ZarrArray.create(store, path, { shape: [30, 20], chunkShape: [8, 8], dataType: 'int16', dimensionNames: ['y', 'x'], attributes });
      await a.set(undefined, Int16Array.from({ length: 600 }, (_, i) => (i % 13 === 0 ? -32767 : i % 17 === 0 ? 7 : i % 19 === 0 ? -1 : i * 53 - 16000)));
    }
    const caches = new ReadCaches();
    for (const [path, , dtype] of cases) {
      const build = (options: Parameters<typeof query>[1]) => query(store, { decode: 'cf', ...options }).from(path, dtype).whereIndex('y', 3, 27).stride('x', 3);
      const after = await build({ keepStored: true }).execute();
      const runs = [];
      for (let i = 0; i < 3; i++) runs.push(await build({ caches }).execute());
      expect(runs[2]!.report.cacheHits.decodedChunks).toBeGreaterThan(0); // the last read cached units
      for (const r of runs) {
        expect(r.data.constructor).toBe(dtype === 'float32' ? Float32Array : Float64Array);
        expect(bits(r.data as ArrayBufferView).equals(bits(after.data as ArrayBufferView))).toBe(true);
      }
      expect(Array.from(after.data as Float64Array).some(Number.isNaN)).toBe(true);
    }
  });
});
