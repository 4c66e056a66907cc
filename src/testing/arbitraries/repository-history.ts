// Repository histories: sequences of session operations over a small fixed namespace, so that ops
// collide often (same paths, same chunks, two sessions on one branch, rebases over the other
// session's commits that conflict or replay cleanly). Everything is an index into
// a short list and every choice is a small integer, so shrinking ends at readable cases such as
// `createArray(s0, /a), write(s0, array #0, c0 = 1), commit(s0)`.
import fc from '../fast-check.ts';
import type { Arbitrary } from 'fast-check';

/** Node paths a history uses; '/a/c' and '/b/c' need their parent group. */
export const HISTORY_PATHS = ['/a', '/b', '/a/c', '/b/c'] as const;
/** A node path of {@link HISTORY_PATHS}. */
export type HistoryPath = (typeof HISTORY_PATHS)[number];

/** Every array in a history: int32, `chunks` chunks of `chunkLength` elements, fill 0. */
export const HISTORY_ARRAY = Object.freeze({ chunks: 4, chunkLength: 2 });

/** Two session slots, so histories can race two sessions (on one branch or two). */
export type Slot = 0 | 1;

/**
 * One step of a generated repository history, over a small fixed namespace of branches, paths and
 * two session slots; every choice is a small index, so shrunk cases stay readable.
 */
export type HistoryOp =
  | { readonly op: 'open'; readonly slot: Slot; readonly branch: number }
  | { readonly op: 'createGroup' | 'createArray'; readonly slot: Slot; readonly path: HistoryPath }
  /** `node` picks among the existing nodes (arrays for chunk ops) in path order, modulo their count. */
  | { readonly op: 'deleteNode'; readonly slot: Slot; readonly node: number }
  /** Rewrites the node's zarr.json with the user attribute `v` = value (a metadata update). */
  | { readonly op: 'setAttr'; readonly slot: Slot; readonly node: number; readonly value: number }
  | { readonly op: 'writeChunk'; readonly slot: Slot; readonly node: number; readonly chunk: number; readonly value: number }
  | { readonly op: 'eraseChunk'; readonly slot: Slot; readonly node: number; readonly chunk: number }
  | { readonly op: 'commit'; readonly slot: Slot }
  /** Rebases the session onto its branch's tip, failing on any conflict (Icechunk's ConflictDetector). */
  | { readonly op: 'rebase'; readonly slot: Slot }
  | { readonly op: 'move'; readonly branch: number; readonly node: number; readonly to: HistoryPath }
  | { readonly op: 'branch' | 'tag'; readonly from: number }
  | { readonly op: 'retag'; readonly tag: number }
  | { readonly op: 'reset'; readonly branch: number; readonly back: number };

/** Options of {@link repositoryHistoryArb}. */
export interface HistoryOptions {
  /** Steps, each an op or a race of two sessions (several ops); default 20. */
  readonly maxOps?: number;
  /** Move ops (a rearranging transaction of their own); default true. */
  readonly moves?: boolean;
  /** Rebase ops; default true. */
  readonly rebases?: boolean;
}

// Mostly slot 0, so content accumulates; slot 1 is the racing session.
const slot = fc.oneof({ arbitrary: fc.constant<Slot>(0), weight: 3 }, { arbitrary: fc.constant<Slot>(1), weight: 1 });
const path = fc.constantFrom(...HISTORY_PATHS);
const chunk = fc.nat(HISTORY_ARRAY.chunks - 1);
const ref = fc.nat(3);
const node = fc.nat(3);
const value = fc.integer({ min: 1, max: 9 });
type Weighted = { weight: number; arbitrary: Arbitrary<HistoryOp> };
const weighted = (weight: number, arbitrary: Arbitrary<HistoryOp>): Weighted => ({ weight, arbitrary });

/** Ops that change a session's tree, on the slots `s` draws. */
function changeOps(s: Arbitrary<Slot>): Weighted[] {
  return [
    weighted(5, fc.oneof(
      fc.record({ op: fc.constantFrom('createGroup' as const, 'createArray' as const), slot: s, path }),
      fc.record({ op: fc.constant('deleteNode' as const), slot: s, node }),
    )),
    // Values are never the fill value (0): a chunk write is always a change, in every implementation.
    weighted(6, fc.record({ op: fc.constant('writeChunk' as const), slot: s, node, chunk, value })),
    weighted(1, fc.record({ op: fc.constant('eraseChunk' as const), slot: s, node, chunk })),
    weighted(1, fc.record({ op: fc.constant('setAttr' as const), slot: s, node, value })),
  ];
}

/** fast-check arbitrary of single history ops, writes and commits weighted up. */
export function historyOpArb(options: HistoryOptions = {}): Arbitrary<HistoryOp> {
  // Writes and commits dominate so histories build real content before they branch and race.
  const arbs = [
    weighted(1, fc.record({ op: fc.constant('open' as const), slot, branch: ref })),
    ...changeOps(slot),
    weighted(2, fc.record({ op: fc.constant('commit' as const), slot })),
    weighted(1, fc.oneof(fc.record({ op: fc.constantFrom('branch' as const, 'tag' as const), from: ref }), fc.record({ op: fc.constant('retag' as const), tag: ref }))),
    weighted(1, fc.record({ op: fc.constant('reset' as const), branch: ref, back: fc.nat(4) })),
  ];
  if (options.rebases !== false) arbs.push(weighted(1, fc.record({ op: fc.constant('rebase' as const), slot: fc.constantFrom<Slot>(0, 1) })));
  if (options.moves !== false) arbs.push(weighted(1, fc.record({ op: fc.constant('move' as const), branch: ref, node, to: path })));
  return fc.oneof(...arbs);
}

/**
 * A race of the two sessions on one branch: both open on its tip and change a few things, the
 * first commits, and the other rebases over that commit (cleanly or not) and commits.
 */
export function raceArb(): Arbitrary<HistoryOp[]> {
  const changes = (s: Slot) => fc.array(fc.oneof(...changeOps(fc.constant(s))), { minLength: 1, maxLength: 3 });
  return fc.record({ branch: ref, first: fc.constantFrom<Slot>(0, 1), a: changes(0), b: changes(1) }).map(({ branch, first, a, b }): HistoryOp[] => {
    const other: Slot = first === 0 ? 1 : 0;
    return [
      { op: 'open', slot: 0, branch }, { op: 'open', slot: 1, branch }, ...a, ...b,
      { op: 'commit', slot: first }, { op: 'rebase', slot: other }, { op: 'commit', slot: other },
    ];
  });
}

/**
 * Content both sessions start from: a group with an array in it and an array beside it committed
 * on main, then s1 reopened on that commit (s0 continues on it), so the two race from the start.
 */
export const SHARED_START: readonly HistoryOp[] = Object.freeze([
  { op: 'createGroup', slot: 0, path: '/a' }, { op: 'createArray', slot: 0, path: '/a/c' }, { op: 'createArray', slot: 0, path: '/b' },
  { op: 'commit', slot: 0 }, { op: 'open', slot: 1, branch: 0 },
]);

/**
 * fast-check arbitrary of whole repository histories: ops, races of two sessions on one branch
 * (rebases), usually starting from shared content.
 */
export function repositoryHistoryArb(options: HistoryOptions = {}): Arbitrary<HistoryOp[]> {
  const single = historyOpArb(options).map((op) => [op]);
  const step = options.rebases === false ? single : fc.oneof({ arbitrary: single, weight: 10 }, { arbitrary: raceArb(), weight: 1 });
  // size 'max': lengths spread over the whole range (fast-check's default keeps arrays near 10).
  const steps = fc.array(step, { minLength: 1, maxLength: options.maxOps ?? 20, size: 'max' });
  // Most histories begin from shared content; shrinking drops it when the case needs none.
  return fc.tuple(fc.oneof({ arbitrary: fc.constant(false), weight: 1 }, { arbitrary: fc.constant(true), weight: 3 }), steps)
    .map(([shared, rest]) => [...(shared ? SHARED_START : []), ...rest.flat()]);
}

/** One op as a short line for reports: `commit(s1)`, `write(s0, /a, c2 = 7)`. */
export function describeHistoryOp(op: HistoryOp): string {
  switch (op.op) {
    case 'open': return `open(s${op.slot}, branch #${op.branch})`;
    case 'createGroup': case 'createArray': return `${op.op}(s${op.slot}, ${op.path})`;
    case 'deleteNode': return `deleteNode(s${op.slot}, node #${op.node})`;
    case 'setAttr': return `setAttr(s${op.slot}, node #${op.node}, v = ${op.value})`;
    case 'writeChunk': return `write(s${op.slot}, array #${op.node}, c${op.chunk} = ${op.value})`;
    case 'eraseChunk': return `erase(s${op.slot}, array #${op.node}, c${op.chunk})`;
    case 'commit': return `commit(s${op.slot})`;
    case 'rebase': return `rebase(s${op.slot})`;
    case 'move': return `move(branch #${op.branch}, node #${op.node} -> ${op.to})`;
    case 'branch': case 'tag': return `${op.op}(from branch #${op.from})`;
    case 'retag': return `retag(tag #${op.tag})`;
    case 'reset': return `reset(branch #${op.branch}, ${op.back} back)`;
  }
}
