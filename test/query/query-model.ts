// The model the query property tests share: random dimensions with labels in a chosen order and
// one predicate each, the indices a predicate selects (by filtering every index), the same
// predicate as builder calls, and a random int32 array written over those dimensions.
import fc from 'fast-check';
import { ZarrArray } from '../../src/engine/array.ts';
import type { ZarrStore } from '../../src/engine/store.ts';
import type { CodecMetadata } from '../../src/format/codecs/types.ts';
import type { QueryBuilder } from '../../src/query/index.ts';
import { shardedCodecs } from './support.ts';

export type Order = 'ascending' | 'descending' | 'unsorted';
export type Pred =
  | { op: 'none' }
  | { op: 'index'; start: number; stop: number; step: number }
  | { op: 'between'; a: number; b: number }
  | { op: '<' | '>='; v: number }
  | { op: 'in'; picks: number[] }
  | { op: 'stride'; step: number }
  | { op: 'limit'; n: number };

export interface Dim {
  length: number;
  inner: number;
  perShard: number;
  order: Order;
  labelSeed: number;
  pred: Pred;
}

export const dimArb = fc.record({
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
export function labelsOf(d: Dim): number[] {
  const asc = Array.from({ length: d.length }, (_, i) => i * 10);
  if (d.order === 'ascending') return asc;
  if (d.order === 'descending') return asc.reverse();
  const r = d.labelSeed % d.length;
  const out = [...asc.slice(r), ...asc.slice(0, r)];
  if (out.length > 2) [out[0], out[2]] = [out[2]!, out[0]!];
  return out;
}

/** The model: selected indices in index order, by filtering every index. */
export function modelIndices(d: Dim): number[] {
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

export function applyPred(q: QueryBuilder<'int32'>, name: string, d: Dim): QueryBuilder<'int32'> {
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

export interface CaseLayout {
  sharded: boolean;
  compressed: boolean;
  indexLocation: 'start' | 'end';
  seed: number;
}

export const layoutArb: fc.Arbitrary<CaseLayout> = fc.record({
  sharded: fc.boolean(),
  compressed: fc.boolean(),
  indexLocation: fc.constantFrom<'start' | 'end'>('start', 'end'),
  seed: fc.integer({ min: 0, max: 2 ** 30 }),
});

export const dimName = (i: number) => `d${i}`;

/** Chunk shape of /v: inner chunks x per shard when sharded. */
export function chunkShapeOf(dims: readonly Dim[], sharded: boolean): number[] {
  return dims.map((d) => (sharded ? d.inner * d.perShard : d.inner));
}

/** Writes the coordinates /d0, /d1, ... and the int32 array /v; returns /v's data (C order). */
export async function writeCase(store: ZarrStore, dims: readonly Dim[], layout: CaseLayout): Promise<Int32Array> {
  const { sharded, compressed, indexLocation } = layout;
  const names = dims.map((_, i) => dimName(i));
  const shape = dims.map((d) => d.length);
  const zstd: CodecMetadata[] = [{ name: 'bytes', configuration: { endian: 'little' } }, { name: 'zstd', configuration: { level: 1, checksum: false } }];
  const codecs = sharded ? shardedCodecs(dims.map((d) => d.inner), compressed, indexLocation) : compressed ? zstd : undefined;
  for (const [i, d] of dims.entries()) {
    const c = await ZarrArray.create(store, `/${names[i]}`, { shape: [d.length], chunkShape: [d.length], dataType: 'float64', dimensionNames: [names[i]!] });
    await c.set(undefined, Float64Array.from(labelsOf(d)));
  }
  const arr = await ZarrArray.create(store, '/v', { shape, chunkShape: chunkShapeOf(dims, sharded), dataType: 'int32', dimensionNames: names, ...(codecs ? { codecs } : {}), fillValue: 0 });
  let s = layout.seed;
  // About a third zeros, so some chunks and inner chunks stay absent (fill value).
  const data = Int32Array.from({ length: shape.reduce((a, b) => a * b, 1) }, () => ((s = (s * 1103515245 + 12345) % 2 ** 31), s % 3 === 0 ? 0 : s % 1000));
  await arr.set(undefined, data);
  return data;
}

/** Every dimension's predicate applied to a query of /v. */
export function applyPreds(q: QueryBuilder<'int32'>, dims: readonly Dim[]): QueryBuilder<'int32'> {
  return dims.reduce((acc, d, i) => applyPred(acc, dimName(i), d), q);
}

/** The model's answer: picked indices per dimension and the selected values in C order. */
export function modelSelection(dims: readonly Dim[], data: Int32Array): { picked: number[][]; values: number[] } {
  const picked = dims.map(modelIndices);
  const st = strides(dims.map((d) => d.length));
  const values: number[] = [];
  const walk = (d: number, offset: number): void => {
    if (d === dims.length) return void values.push(data[offset]!);
    for (const i of picked[d]!) walk(d + 1, offset + i * st[d]!);
  };
  walk(0, 0);
  return { picked, values };
}

function strides(shape: number[]): number[] {
  return shape.map((_, d) => shape.slice(d + 1).reduce((a, b) => a * b, 1));
}

