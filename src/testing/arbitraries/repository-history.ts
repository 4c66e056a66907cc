// Repository histories: sequences of session operations over a small fixed namespace, so that ops
// collide often (same paths, same chunks, two sessions on one branch). Everything is an index into
// a short list and every choice is a small integer, so shrinking ends at readable cases such as
// `createArray(s0, /a), write(s0, array #0, c0 = 1), commit(s0)`.
import fc from 'fast-check';

/** Node paths a history uses; '/a/c' and '/b/c' need their parent group. */
export const HISTORY_PATHS = ['/a', '/b', '/a/c', '/b/c'] as const;
export type HistoryPath = (typeof HISTORY_PATHS)[number];

/** Every array in a history: int32, `chunks` chunks of `chunkLength` elements, fill 0. */
export const HISTORY_ARRAY = Object.freeze({ chunks: 4, chunkLength: 2 });

/** Two session slots, so histories can race two sessions (on one branch or two). */
export type Slot = 0 | 1;

export type HistoryOp =
  | { readonly op: 'open'; readonly slot: Slot; readonly branch: number }
  | { readonly op: 'createGroup' | 'createArray'; readonly slot: Slot; readonly path: HistoryPath }
  /** `node` picks among the existing nodes (arrays for chunk ops) in path order, modulo their count. */
  | { readonly op: 'deleteNode'; readonly slot: Slot; readonly node: number }
  | { readonly op: 'writeChunk'; readonly slot: Slot; readonly node: number; readonly chunk: number; readonly value: number }
  | { readonly op: 'eraseChunk'; readonly slot: Slot; readonly node: number; readonly chunk: number }
  | { readonly op: 'commit'; readonly slot: Slot }
  | { readonly op: 'move'; readonly branch: number; readonly node: number; readonly to: HistoryPath }
  | { readonly op: 'branch' | 'tag'; readonly from: number }
  | { readonly op: 'retag'; readonly tag: number }
  | { readonly op: 'reset'; readonly branch: number; readonly back: number };

export interface HistoryOptions {
  /** Default 40. */
  readonly maxOps?: number;
  /** Move ops (a rearranging transaction of their own); default true. */
  readonly moves?: boolean;
}

// Mostly slot 0, so content accumulates; slot 1 is the racing session.
const slot = fc.oneof({ arbitrary: fc.constant<Slot>(0), weight: 3 }, { arbitrary: fc.constant<Slot>(1), weight: 1 });
const path = fc.constantFrom(...HISTORY_PATHS);
const chunk = fc.nat(HISTORY_ARRAY.chunks - 1);
const ref = fc.nat(3);
const node = fc.nat(3);

export function historyOpArb(options: HistoryOptions = {}): fc.Arbitrary<HistoryOp> {
  const arbs: fc.Arbitrary<HistoryOp>[] = [
    fc.record({ op: fc.constant('open' as const), slot, branch: ref }),
    fc.oneof(
      fc.record({ op: fc.constantFrom('createGroup' as const, 'createArray' as const), slot, path }),
      fc.record({ op: fc.constant('deleteNode' as const), slot, node }),
    ),
    // Values are never the fill value (0): a chunk write is always a change, in every implementation.
    fc.record({ op: fc.constant('writeChunk' as const), slot, node, chunk, value: fc.integer({ min: 1, max: 9 }) }),
    fc.record({ op: fc.constant('eraseChunk' as const), slot, node, chunk }),
    fc.record({ op: fc.constant('commit' as const), slot }),
    fc.oneof(fc.record({ op: fc.constantFrom('branch' as const, 'tag' as const), from: ref }), fc.record({ op: fc.constant('retag' as const), tag: ref })),
    fc.record({ op: fc.constant('reset' as const), branch: ref, back: fc.nat(4) }),
  ];
  if (options.moves !== false) arbs.push(fc.record({ op: fc.constant('move' as const), branch: ref, node, to: path }));
  // Writes and commits dominate so histories build real content before they branch and race.
  return fc.oneof(
    { arbitrary: arbs[0]!, weight: 1 }, { arbitrary: arbs[1]!, weight: 5 }, { arbitrary: arbs[2]!, weight: 6 },
    { arbitrary: arbs[3]!, weight: 1 }, { arbitrary: arbs[4]!, weight: 2 }, { arbitrary: arbs[5]!, weight: 1 },
    { arbitrary: arbs[6]!, weight: 1 }, ...(arbs[7] ? [{ arbitrary: arbs[7], weight: 1 }] : []),
  );
}

export function repositoryHistoryArb(options: HistoryOptions = {}): fc.Arbitrary<HistoryOp[]> {
  // size 'max': lengths spread over the whole range (fast-check's default keeps arrays near 10).
  return fc.array(historyOpArb(options), { minLength: 1, maxLength: options.maxOps ?? 40, size: 'max' });
}

/** One op as a short line for reports: `commit(s1)`, `write(s0, /a, c2 = 7)`. */
export function describeHistoryOp(op: HistoryOp): string {
  switch (op.op) {
    case 'open': return `open(s${op.slot}, branch #${op.branch})`;
    case 'createGroup': case 'createArray': return `${op.op}(s${op.slot}, ${op.path})`;
    case 'deleteNode': return `deleteNode(s${op.slot}, node #${op.node})`;
    case 'writeChunk': return `write(s${op.slot}, array #${op.node}, c${op.chunk} = ${op.value})`;
    case 'eraseChunk': return `erase(s${op.slot}, array #${op.node}, c${op.chunk})`;
    case 'commit': return `commit(s${op.slot})`;
    case 'move': return `move(branch #${op.branch}, node #${op.node} -> ${op.to})`;
    case 'branch': case 'tag': return `${op.op}(from branch #${op.from})`;
    case 'retag': return `retag(tag #${op.tag})`;
    case 'reset': return `reset(branch #${op.branch}, ${op.back} back)`;
  }
}
