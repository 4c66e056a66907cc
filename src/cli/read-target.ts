// Reading `ref:path[slice]` from a repository: the array, the selection's shape, and its values.
// Shared by `cat`, `plot` and `export`-like readers.
import { floeError } from '../errors.ts';
import { ZarrArray } from '../engine/array.ts';
import { nodeMetadata } from '../engine/read-source.ts';
import { normalizeSelection, resultShape } from '../engine/selection.ts';
import type { AbortOptions } from '../engine/storage/types.ts';
import type { CfNdArray } from '../engine/cf-read.ts';
import { decodedDataType } from '../format/cf/variable.ts';
import { parseDataType, type ArrayData, type DataType } from '../format/zarr/data-types.ts';
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
  checkCount(opened, target, maxValues);
  return opened.array.get(target.selection, { ...request });
}

/** What the CLI shows of a selection: CF-decoded values (dates as ISO text) unless `raw`, with their type. */
export interface TargetValues {
  readonly data: ArrayData;
  readonly shape: number[];
  readonly dataType: DataType;
  /** The decoding, when the values were decoded (not `--raw`). */
  readonly cf?: CfNdArray;
}

/** readTarget, CF-decoded unless `raw` (docs/cf.md): physical values, a time variable's dates as ISO text (`NaT` where missing). */
export async function readTargetValues(opened: OpenedTarget, target: Target, maxValues: number, raw: boolean, request?: AbortOptions): Promise<TargetValues> {
  if (raw || !opened.array.dataType.kind.match(/^(int|uint|float)$/)) {
    const values = await readTarget(opened, target, maxValues, request);
    return { data: values.data, shape: values.shape, dataType: opened.array.dataType };
  }
  checkCount(opened, target, maxValues);
  const boundsOf = await boundsParent(opened);
  const cf = await opened.array.get(target.selection, { ...request, decode: 'cf', ...(boundsOf && { boundsOf }) });
  if (Array.isArray(cf.data)) return { data: cf.data.map((d) => (d === null ? 'NaT' : d.toString())), shape: cf.shape, dataType: parseDataType('string'), cf };
  return { data: cf.data, shape: cf.shape, dataType: parseDataType(decodedDataType(cf.cf, opened.array.dtype)), cf };
}

/**
 * The variable whose `bounds` names this array, found beside it in its group (CF 7.1: the bounds
 * inherit its units and calendar); undefined when none does. Siblings are judged by the
 * attributes in their metadata documents, which listing the group already holds: only the one
 * that names this array is opened.
 */
export async function boundsParent(opened: OpenedTarget): Promise<ZarrArray | undefined> {
  const { array, source } = opened;
  const slash = array.path.lastIndexOf('/');
  const [parent, name] = [array.path.slice(0, Math.max(1, slash)), array.path.slice(slash + 1)];
  if (array.attributes.units !== undefined) return undefined;
  for (const child of await source.children(parent)) {
    if (child.kind !== 'array' || child.path === array.path) continue;
    if (nodeMetadata(child).attributes.bounds === name) return ZarrArray.open(source.store, child.path);
  }
  return undefined;
}

function checkCount(opened: OpenedTarget, target: Target, maxValues: number): void {
  const count = opened.shape.reduce((a, b) => a * b, 1);
  if (count > maxValues) {
    throw floeError('INVALID_SELECTION', `${target.path}${target.selection ? '[…]' : ''} selects ${count} values, more than ${maxValues}; narrow it, e.g. ${target.ref}:${target.path}[0, :10]`);
  }
}
