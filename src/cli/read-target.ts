// Reading `ref:path[slice]` from a repository: the array, the selection's shape, and its values.
// Shared by `cat`, `plot` and `export`-like readers.
import { floeError } from '../errors.ts';
import { ZarrArray } from '../engine/array.ts';
import { normalizeSelection, resultShape } from '../engine/selection.ts';
import type { AbortOptions } from '../engine/storage/types.ts';
import type { NdArray } from '../format/zarr/ndarray.ts';
import type { Repository } from '../txn/index.ts';
import { openReadonly, type Target, type VersionReader } from './targets.ts';

export interface OpenedTarget {
  readonly source: VersionReader;
  readonly array: ZarrArray;
  /** The shape the selection reads (integer indices drop their dimension). */
  readonly shape: number[];
}

export async function openTargetArray(repo: Repository, target: Target, request?: AbortOptions): Promise<OpenedTarget> {
  const source = await openReadonly(repo, target.ref, request);
  const node = await source.node(target.path, request);
  if (!node) throw floeError('NOT_FOUND', `no array at ${target.path} in ${target.ref}; see \`floe ls ${target.ref}\``);
  if (node.kind !== 'array') throw floeError('NODE_TYPE_MISMATCH', `${target.path} is a group; name an array (see \`floe ls ${target.ref} ${target.path}\`)`);
  const array = await ZarrArray.open(source.store, target.path, request);
  const shape = resultShape(normalizeSelection(target.selection, array.shape));
  return { source, array, shape };
}

/** Reads the selection, refusing ones above `maxValues` so a typo cannot pull terabytes. */
export async function readTarget(opened: OpenedTarget, target: Target, maxValues: number, request?: AbortOptions): Promise<NdArray> {
  const count = opened.shape.reduce((a, b) => a * b, 1);
  if (count > maxValues) {
    throw floeError('INVALID_SELECTION', `${target.path}${target.selection ? '[…]' : ''} selects ${count} values, more than ${maxValues}; narrow it, e.g. ${target.ref}:${target.path}[0, :10]`);
  }
  return opened.array.get(target.selection, { ...request });
}
