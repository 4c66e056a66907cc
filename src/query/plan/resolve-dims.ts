// Planner pass 2: per-dimension operations to index sets. Filters (where, whereIndex, nearest)
// intersect in any order; thinning (limit, stride) then applies in call order. Label operations
// load the dimension's coordinate array once.
import { match } from 'ts-pattern';
import { floeError } from '../../errors.ts';
import { nodeText } from '../nodes/node-text.ts';
import type { DimOperationNode } from '../nodes/query-node.ts';
import type { WhereIndexNode } from '../nodes/where-index-node.ts';
import type { Coordinate } from './coordinate.ts';
import { fullSet, intersectSets, keepProgression, limitSet, setCount, strideSet, type DimSet } from './dim-set.ts';
import type { DimPlan, LookupNote } from './plan-types.ts';
import type { DimInfo } from './resolve-arrays.ts';

// Label lookups load with the first query that has one (positional queries never need them).
const labelLookup = () => import('./label-lookup.ts');

/** Which stage an operation runs in; a Record so a new node kind must choose one. */
const STAGE: Record<DimOperationNode['kind'], 'filter' | 'thin'> = {
  WhereNode: 'filter',
  WhereIndexNode: 'filter',
  NearestNode: 'filter',
  LimitNode: 'thin',
  StrideNode: 'thin',
};

/** Operations that resolve labels through a coordinate array (the planner loads those early). */
export const NEEDS_LABELS: Record<DimOperationNode['kind'], boolean> = {
  WhereNode: true,
  NearestNode: true,
  WhereIndexNode: false,
  LimitNode: false,
  StrideNode: false,
};

export type CoordinateLoader = (dim: DimInfo) => Promise<Coordinate>;

interface DimState {
  set: DimSet;
  coordinate: Coordinate | undefined;
  readonly lookups: LookupNote[];
}

export async function resolveDims(dims: readonly DimInfo[], operations: readonly DimOperationNode[], loadCoordinate: CoordinateLoader): Promise<DimPlan[]> {
  const byName = new Map(dims.map((d) => [d.name, d]));
  const states = new Map<string, DimState>(dims.map((d) => [d.name, { set: fullSet(d.length), coordinate: undefined, lookups: [] }]));
  const ordered = [...operations.filter((op) => STAGE[op.kind] === 'filter'), ...operations.filter((op) => STAGE[op.kind] === 'thin')];
  for (const op of ordered) {
    const dim = byName.get(op.dim);
    if (!dim) {
      throw floeError('INVALID_ARGUMENT', `unknown dimension "${op.dim}" in ${nodeText(op)}; the query's dimensions are ${dims.map((d) => `"${d.name}"`).join(', ')}`, {
        details: { dim: op.dim },
      });
    }
    const state = states.get(op.dim)!;
    const coordinate = async () => (state.coordinate ??= await loadCoordinate(dim));
    const step = await match(op)
      .with({ kind: 'WhereNode' }, async (n) => ({ ...(await labelLookup()).lookupWhere(await coordinate(), n), thin: false }))
      .with({ kind: 'NearestNode' }, async (n) => ({ ...(await labelLookup()).lookupNearest(await coordinate(), n), thin: false }))
      .with({ kind: 'WhereIndexNode' }, async (n) => ({ set: positional(n, dim.length), method: 'positional' as const, comparisons: 0, thin: false }))
      .with({ kind: 'LimitNode' }, async (n) => ({ set: limitSet(state.set, n.count), method: 'thinning' as const, comparisons: 0, thin: true }))
      .with({ kind: 'StrideNode' }, async (n) => ({ set: strideSet(state.set, n.step), method: 'thinning' as const, comparisons: 0, thin: true }))
      .exhaustive();
    state.set = step.thin ? step.set : intersectSets(state.set, step.set);
    state.lookups.push({ operation: nodeText(op), method: step.method, comparisons: step.comparisons, selected: setCount(state.set) });
  }
  return dims.map((d) => {
    const s = states.get(d.name)!;
    const c = s.coordinate;
    const units = c?.time?.units ?? (c?.cfTime ? `${c.cfTime.units}, calendar ${c.cfTime.calendar}` : undefined);
    const coordinate = c ? { path: c.path, dtype: c.dtype, order: c.order, units } : undefined;
    return { name: d.name, length: d.length, set: s.set, count: setCount(s.set), coordinate, lookups: s.lookups };
  });
}

/** Python slice bounds with a positive step: negatives count from the end, then clamp. */
function positional(n: WhereIndexNode, length: number): DimSet {
  const clamp = (v: number | null, dflt: number) => (v === null ? dflt : Math.min(Math.max(v < 0 ? v + length : v, 0), length));
  return keepProgression(fullSet(length), clamp(n.start, 0), clamp(n.stop, length), n.step);
}
