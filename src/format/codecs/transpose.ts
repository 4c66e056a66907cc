// The `transpose` codec: permutes dimensions. Both directions return strided views; the copy
// happens once, where the data is finally laid out (bytes encode, or the read into the result).
import { floeError } from '../../errors.ts';
import type { ArrayToArrayCodec, ChunkSpec } from './array-codecs.ts';
import { shown } from './bytes-codec-support.ts';
import { argumentAt } from './checked-index.ts';
import { PLAIN_CAPABILITIES, type ArrayCodecImplementation } from './codec-implementation.ts';

export function transposeCodec(configuration: Record<string, unknown> | undefined, rank: number): ArrayToArrayCodec {
  const order = parseOrder(configuration?.order, rank);
  const inverse = new Array<number>(rank);
  order.forEach((o, i) => (inverse[o] = i));
  return {
    kind: 'array_to_array',
    name: 'transpose',
    toJSON: () => ({ name: 'transpose', configuration: { order: [...order] } }),
    resolveSpec: (spec: ChunkSpec) => ({ ...spec, shape: permute(spec.shape, order) }),
    encode: (a) => ({ data: a.data, shape: permute(a.shape, order), stride: permute(a.stride, order) }),
    decode: (a) => ({ data: a.data, shape: permute(a.shape, inverse), stride: permute(a.stride, inverse) }),
  };
}

/** `xs` reordered by `order`; an array whose rank is not the codec's is an INVALID_ARGUMENT. */
function permute(xs: readonly number[], order: readonly number[]): number[] {
  return order.map((o) => argumentAt(xs, o, `transpose: a rank-${xs.length} array through a rank-${order.length} order`));
}

function parseOrder(order: unknown, rank: number): number[] {
  // "C" / "F" were allowed by early drafts; some writers still emit them.
  if (order === 'C') return [...Array(rank).keys()];
  if (order === 'F') return [...Array(rank).keys()].reverse();
  const ok =
    Array.isArray(order) &&
    order.length === rank &&
    order.every((o) => Number.isInteger(o) && o >= 0 && o < rank) &&
    new Set(order).size === rank;
  if (!ok) {
    throw floeError('INVALID_METADATA', `transpose: order must be a permutation of 0..${rank - 1}, got ${shown(order)}`);
  }
  return order as number[];
}

export const transposeEntry: ArrayCodecImplementation = {
  name: 'transpose',
  kind: 'array_to_array',
  capabilities: PLAIN_CAPABILITIES,
  zarrV3: (configuration, { spec }) => transposeCodec(configuration, spec.shape.length),
};
