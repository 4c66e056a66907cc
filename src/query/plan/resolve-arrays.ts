// Planner pass 1: open the `from` array and every selected array, and build the dimension table
// (names from `dimension_names`, `#i` for unnamed ones). Arrays sharing a dimension must agree
// on its length.
import { floeError } from '../../errors.ts';
import { openArray } from '../../engine/api.ts';
import type { ZarrArray } from '../../engine/array.ts';
import { zipEvery } from '../../engine/indexing.ts';
import { mapLimit } from '../../engine/storage/limiter.ts';
import type { ZarrStore } from '../../engine/store.ts';
import { joinPath, normalizePath, parentPath } from '../../format/zarr/paths.ts';
import type { QueryNode } from '../nodes/query-node.ts';

export interface ResolvedArray {
  readonly array: ZarrArray;
  readonly dims: readonly string[];
}

export interface DimInfo {
  readonly name: string;
  readonly length: number;
}

export interface ResolvedArrays {
  readonly arrays: readonly ResolvedArray[];
  readonly dims: readonly DimInfo[];
}

export function dimNames(array: ZarrArray): string[] {
  return array.shape.map((_, i) => array.dimensionNames?.[i] ?? `#${i}`);
}

/** Opens the query's arrays, `concurrency` metadata reads in flight. */
export async function resolveArrays(store: ZarrStore, query: QueryNode, concurrency: number, decode?: 'none' | 'cf'): Promise<ResolvedArrays> {
  const from = query.from;
  if (!from) throw floeError('INVALID_ARGUMENT', 'a query needs .from(path) naming the array to read');
  const primaryPath = normalizePath(from.path);
  const others = (query.select?.paths ?? []).map((p) => (p.startsWith('/') ? normalizePath(p) : joinPath(parentPath(primaryPath), p)));
  const paths = [primaryPath, ...others.filter((p) => p !== primaryPath)];
  // Zarr v3 or, where there is no zarr.json, v2 (a V2Array reads its chunks through its filters and compressor).
  const [primary, rest] = await Promise.all([openArray(store, primaryPath), mapLimit(paths.slice(1), concurrency, (p) => openArray(store, p))]);
  const opened = [primary, ...rest];
  // Under decode: 'cf' the result holds the decoded type, so that is what from(path, dtype) names.
  const holds = from.dtype === undefined || decode !== 'cf' ? primary.dtype
    : (await import('../../format/cf/variable.ts')).decodedDataType(await primary.cfVariable(), primary.dtype);
  if (from.dtype !== undefined && from.dtype !== holds) {
    const decoded = holds === primary.dtype ? '' : ` (stored as ${primary.dtype}; decode: 'cf' reads ${holds})`;
    throw floeError('INVALID_ARGUMENT', `type mismatch: ${primary.path} holds ${holds}${decoded}, the query expects ${from.dtype}`, {
      where: primary.path, details: { path: primary.path, dtype: holds, expectedDtype: from.dtype },
    });
  }
  const lengths = new Map<string, { length: number; path: string }>();
  const dims: DimInfo[] = [];
  const arrays = opened.map((array) => {
    const names = dimNames(array);
    zipEvery(names, array.shape, (name, length) => {
      const seen = lengths.get(name);
      if (seen && seen.length !== length) {
        throw floeError('INVALID_ARGUMENT', `dimension "${name}" has length ${seen.length} in ${seen.path} but ${length} in ${array.path}`, { details: { dim: name } });
      }
      if (!seen) {
        lengths.set(name, { length, path: array.path });
        dims.push({ name, length });
      }
      return true;
    });
    return { array, dims: names };
  });
  return { arrays, dims };
}

