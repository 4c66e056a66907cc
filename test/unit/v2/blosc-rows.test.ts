// Zarr v2 arrays compressed with Blosc, read where chunks decode straight into the result's rows
// (whole rows of at least 512 bytes): the written values, bit for bit, in this thread and on
// decode workers, for whole reads, row ranges, ragged edges, 1-d and 3-d chunks, and selections
// that are not whole rows (the ordinary path); chunks written by c-blosc (numcodecs.js) as well.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Blosc from 'numcodecs/blosc';
import { afterAll, describe, expect, it } from 'vitest';
import { createArray, openArray, openStore } from '../../../src/engine/api.ts';
import { slice } from '../../../src/engine/selection.ts';
import { testPool, warmPool } from '../../support/decode-pool.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'floe-v2-blosc-rows-'));
const pool = testPool(1 << 20);
afterAll(async () => {
  await pool.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Smooth values with noise in the low bits, as measurements look. */
function values(n: number): Float32Array {
  let s = 7;
  return Float32Array.from({ length: n }, (_, i) => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return 50 * Math.sin(i / 900) + (s / 2 ** 32) * 0.01;
  });
}

/** The selected part of a C-ordered array (the oracle: plain index arithmetic). */
function pick(all: Float32Array, shape: number[], ranges: [number, number][]): Float32Array {
  const out: number[] = [];
  const strides = shape.map((_, d) => shape.slice(d + 1).reduce((a, b) => a * b, 1));
  const walk = (d: number, base: number): void => {
    const [lo, hi] = ranges[d] ?? [0, 0];
    for (let i = lo; i < hi; i++) {
      if (d === shape.length - 1) out.push(all[base + i] ?? NaN);
      else walk(d + 1, base + i * (strides[d] ?? 0));
    }
  };
  walk(0, 0);
  return Float32Array.from(out);
}

const sameBits = (got: unknown, want: Float32Array) => {
  const g = got as Float32Array;
  return g.length === want.length && Buffer.from(g.buffer, g.byteOffset, g.byteLength).equals(Buffer.from(want.buffer));
};

const compressor = { id: 'blosc', cname: 'lz4', clevel: 5, shuffle: 1, blocksize: 0 };

describe('Zarr v2 Blosc chunks decoded into the result\'s rows', () => {
  const cases: [string, number[], number[], [number, number][]][] = [
    ['2-d whole', [512, 640], [128, 256], [[0, 512], [0, 640]]],
    ['2-d row range, ragged edge', [500, 600], [128, 256], [[37, 470], [0, 600]]],
    ['2-d column cut (not whole rows)', [512, 640], [128, 256], [[3, 300], [5, 600]]],
    ['1-d range', [300_000], [65_536], [[1_000, 250_000]]],
    ['3-d row range', [40, 64, 256], [16, 32, 256], [[5, 37], [0, 64], [0, 256]]],
  ];
  for (const [name, shape, chunks, ranges] of cases) {
    it(`${name}: the written values in-thread and on workers`, async () => {
      const all = values(shape.reduce((a, b) => a * b, 1));
      const store = openStore(path.join(dir, name.replace(/[^a-z0-9]+/gi, '-')));
      const a = await createArray(store, '/a', { zarrFormat: 2, shape, chunks, dtype: '<f4', compressor, fillValue: 0 });
      await a.set(undefined, all);
      const selection = ranges.map(([lo, hi]) => slice(lo, hi));
      const expected = pick(all, shape, ranges);
      const back = await openArray(openStore(path.join(dir, name.replace(/[^a-z0-9]+/gi, '-')), { readOnly: true, decodedChunkBytes: 0 }), '/a');
      expect(sameBits((await back.get(selection, { decodePool: false })).data, expected)).toBe(true);
      await warmPool(pool);
      expect(sameBits((await back.get(selection, { decodePool: pool })).data, expected)).toBe(true);
    });
  }

  it('reads chunks c-blosc wrote (LZ4 streams split per byte) the same way', async () => {
    const shape = [256, 512];
    const chunks = [128, 512];
    const all = values(256 * 512);
    const root = path.join(dir, 'cblosc');
    const store = openStore(root);
    await createArray(store, '/a', { zarrFormat: 2, shape, chunks, dtype: '<f4', compressor, fillValue: 0 });
    const codec = Blosc.fromConfig({ cname: 'lz4', clevel: 5, shuffle: 1, blocksize: 0 });
    for (let c = 0; c < 2; c++) {
      const part = all.slice(c * 128 * 512, (c + 1) * 128 * 512);
      writeFileSync(path.join(root, 'a', `${c}.0`), await codec.encode(new Uint8Array(part.buffer)));
    }
    const back = await openArray(openStore(root, { readOnly: true, decodedChunkBytes: 0 }), '/a');
    expect(sameBits((await back.get(undefined, { decodePool: false })).data, all)).toBe(true);
    expect(sameBits((await back.get([slice(100, 200)], { decodePool: pool })).data, all.slice(100 * 512, 200 * 512))).toBe(true);
  });
});
