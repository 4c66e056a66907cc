// Random arrays, chunkings, shardings and predicates: a query's result equals the same selection
// computed by plain loops over an in-memory copy, and every object or byte range it fetched
// belongs to a chunk (inner chunk, for shards) that the selection touches.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ZarrArray } from '../../src/engine/array.ts';
import { query, type QueryBuilder } from '../../src/query/index.ts';
import { countingStore, shardedCodecs, type CountedRequest } from '../query/support.ts';

type Order = 'ascending' | 'descending' | 'unsorted';
type Pred =
  | { op: 'none' }
  | { op: 'index'; start: number; stop: number; step: number }
  | { op: 'between'; a: number; b: number }
  | { op: '<' | '>='; v: number }
  | { op: 'in'; picks: number[] }
  | { op: 'stride'; step: number }
  | { op: 'limit'; n: number };

interface Dim {
  length: number;
  inner: number;
  perShard: number;
  order: Order;
  labelSeed: number;
  pred: Pred;
}

const dimArb = fc.record({
  length: fc.integer({ min: 1, max: 13 }),
  inner: fc.integer({ min: 1, max: 5 }),
  perShard: fc.integer({ min: 1, max: 3 }),
  order: fc.constantFrom<Order>('ascending', 'descending', 'unsorted'),
  labelSeed: fc.integer({ min: 0, max: 1000 }),
  pred: fc.oneof(
    fc.constant<Pred>({ op: 'none' }),
    fc.record({ op: fc.constant('index' as const), start: fc.integer({ min: -14, max: 14 }), stop: fc.integer({ min: -14, max: 14 }), step: fc.integer({ min: 1, max: 4 }) }),
    fc.record({ op: fc.constant('between' as const), a: fc.integer({ min: -5, max: 140 }), b: fc.integer({ min: -5, max: 140 }) }),
    fc.record({ op: fc.constantFrom('<' as const, '>=' as const), v: fc.integer({ min: -5, max: 140 }) }),
    fc.record({ op: fc.constant('in' as const), picks: fc.array(fc.integer({ min: 0, max: 12 }), { minLength: 1, maxLength: 4 }) }),
    fc.record({ op: fc.constant('stride' as const), step: fc.integer({ min: 1, max: 4 }) }),
    fc.record({ op: fc.constant('limit' as const), n: fc.integer({ min: 0, max: 14 }) }),
  ),
});

/** Distinct labels 10*i in the requested order (unsorted: a seeded rotation and swap). */
function labelsOf(d: Dim): number[] {
  const asc = Array.from({ length: d.length }, (_, i) => i * 10);
  if (d.order === 'ascending') return asc;
  if (d.order === 'descending') return asc.reverse();
  const r = d.labelSeed % d.length;
  const out = [...asc.slice(r), ...asc.slice(0, r)];
  if (out.length > 2) [out[0], out[2]] = [out[2]!, out[0]!];
  return out;
}

/** The model: selected indices in index order, by filtering every index. */
function modelIndices(d: Dim): number[] {
  const labels = labelsOf(d);
  const all = labels.map((_, i) => i);
  const p = d.pred;
  switch (p.op) {
    case 'none':
      return all;
    case 'index': {
      const norm = (v: number) => Math.min(Math.max(v < 0 ? v + d.length : v, 0), d.length);
      const [s, e] = [norm(p.start), norm(p.stop)];
      return all.filter((i) => i >= s && i < e && (i - s) % p.step === 0);
    }
    case 'between':
      return all.filter((i) => labels[i]! >= Math.min(p.a, p.b) && labels[i]! <= Math.max(p.a, p.b));
    case '<':
      return all.filter((i) => labels[i]! < p.v);
    case '>=':
      return all.filter((i) => labels[i]! >= p.v);
    case 'in': {
      const want = new Set(p.picks.filter((k) => k < d.length).map((k) => k * 10));
      return all.filter((i) => want.has(labels[i]!));
    }
    case 'stride':
      return all.filter((i) => i % p.step === 0);
    case 'limit':
      return all.slice(0, p.n);
  }
}

function applyPred(q: QueryBuilder<'int32'>, name: string, d: Dim): QueryBuilder<'int32'> {
  const p = d.pred;
  switch (p.op) {
    case 'none':
      return q;
    case 'index':
      return q.whereIndex(name, p.start, p.stop, p.step);
    case 'between':
      return q.where(name, 'between', [p.a, p.b]);
    case '<':
    case '>=':
      return q.where(name, p.op, p.v);
    case 'in': {
      const labels = p.picks.filter((k) => k < d.length).map((k) => k * 10);
      return labels.length > 0 ? q.where(name, 'in', labels) : q.limit(name, 0);
    }
    case 'stride':
      return q.stride(name, p.step);
    case 'limit':
      return q.limit(name, p.n);
  }
}

function strides(shape: number[]): number[] {
  return shape.map((_, d) => shape.slice(d + 1).reduce((a, b) => a * b, 1));
}

describe('query properties', () => {
  it('equals the in-memory selection and fetches only touched chunks', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(dimArb, { minLength: 1, maxLength: 3 }),
        fc.boolean(), fc.boolean(), fc.constantFrom<'start' | 'end'>('start', 'end'), fc.integer({ min: 0, max: 2 ** 30 }),
        async (dims, sharded, compressed, indexLocation, seed) => {
          const { store, log, reset } = countingStore();
          const names = dims.map((_, i) => `d${i}`);
          const shape = dims.map((d) => d.length);
          const chunk = dims.map((d) => (sharded ? d.inner * d.perShard : d.inner));
          const codecs = sharded ? shardedCodecs(dims.map((d) => d.inner), compressed, indexLocation) : compressed ? [{ name: 'bytes', configuration: { endian: 'little' } }, { name: 'zstd', configuration: { level: 1, checksum: false } }] : undefined;
          for (const [i, d] of dims.entries()) {
            const c = await ZarrArray.create(store, `/${names[i]}`, { shape: [d.length], chunkShape: [d.length], dataType: 'float64', dimensionNames: [names[i]!] });
            await c.set(undefined, Float64Array.from(labelsOf(d)));
          }
          const arr = await ZarrArray.create(store, '/v', { shape, chunkShape: chunk, dataType: 'int32', dimensionNames: names, codecs, fillValue: 0 });
          const n = shape.reduce((a, b) => a * b, 1);
          let s = seed;
          // About a third zeros, so some chunks and inner chunks stay absent (fill value).
          const data = Int32Array.from({ length: n }, () => ((s = (s * 1103515245 + 12345) % 2 ** 31), s % 3 === 0 ? 0 : s % 1000));
          await arr.set(undefined, data);

          let q = query(store, { coalesce: { gapBytes: 0, maxOverread: 0 } }).from('/v', 'int32');
          dims.forEach((d, i) => (q = applyPred(q, names[i]!, d)));
          reset();
          const result = await q.execute();

          const picked = dims.map(modelIndices);
          const expected: number[] = [];
          const st = strides(shape);
          const walk = (d: number, offset: number) => {
            if (d === dims.length) return void expected.push(data[offset]!);
            for (const i of picked[d]!) walk(d + 1, offset + i * st[d]!);
          };
          walk(0, 0);
          expect(result.shape).toEqual(picked.map((p) => p.length));
          expect(Array.from(result.data)).toEqual(expected);
          expect(result.report.fetched.unplanned.requests).toBe(0);
          await checkFetches(store, [...log], dims, picked, chunk, sharded, indexLocation);
        },
      ),
      { numRuns: 150 },
    );
  });
});

type Store = ReturnType<typeof countingStore>['store'];

/** Every data request hits a touched chunk; for shards, only bytes of touched inner chunks (or the index). */
async function checkFetches(store: Store, log: CountedRequest[], dims: Dim[], picked: number[][], chunk: number[], sharded: boolean, indexLocation: 'start' | 'end'): Promise<void> {
  const touchedChunks = picked.map((p, d) => new Set(p.map((i) => Math.floor(i / chunk[d]!))));
  const touchedInner = picked.map((p, d) => new Set(p.map((i) => Math.floor(i / dims[d]!.inner))));
  const perShard = dims.map((d) => d.perShard);
  const nInner = perShard.reduce((a, b) => a * b, 1);
  const indexBytes = nInner * 16 + 4;
  for (const r of log.filter((x) => x.key.startsWith('v/c/'))) {
    const coords = r.key.slice('v/c/'.length).split('/').map(Number);
    expect(coords.every((c, d) => touchedChunks[d]!.has(c))).toBe(true);
    if (!sharded || r.range === undefined || 'suffixLength' in r.range) continue;
    if (indexLocation === 'start' && r.range.offset === 0 && r.range.length === indexBytes) continue;
    // Which inner chunk owns each byte of the range: the shard's index, decoded here by hand.
    const shard = (await store.get(r.key))!;
    const view = new DataView(shard.buffer, shard.byteOffset + (indexLocation === 'end' ? shard.length - indexBytes : 0), nInner * 16);
    const start = r.range.offset;
    const end = start + (r.range.length ?? 0);
    for (let i = 0; i < nInner; i++) {
      const off = view.getBigUint64(i * 16, true);
      if (off === 2n ** 64n - 1n) continue;
      const [o, l] = [Number(off), Number(view.getBigUint64(i * 16 + 8, true))];
      if (o + l <= start || o >= end) continue;
      const innerCoords = perShard.map((_, d) => Math.floor(i / perShard.slice(d + 1).reduce((a, b) => a * b, 1)) % perShard[d]!);
      expect(innerCoords.every((c, d) => touchedInner[d]!.has(coords[d]! * perShard[d]! + c))).toBe(true);
    }
  }
}
