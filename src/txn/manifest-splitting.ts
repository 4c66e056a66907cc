// Manifest splitting by the config's rules (the reference's ManifestSplittingConfig, serde form):
//   splitting: { split_sizes: [[<array condition>, [{ condition: <dim condition>, num_chunks }]]] }
// Array conditions: { path_matches: { regex } }, { name_matches: { regex } }, { and: [...] },
// { or: [...] }, "AnyArray". Dimension conditions: { Axis: n }, { DimensionName: name }, "Any".
// The first array rule that matches wins; within it, each dimension takes the first matching
// dimension rule. Dimensions no rule matches are not split.
import { floeError } from '../errors.ts';
import type { ChunkRef } from '../format/icechunk/manifest.ts';
import { zipMap } from '../engine/indexing.ts';
import type { ChunkIndexRange } from '../format/icechunk/snapshot.ts';
import type { MetadataValue } from '../format/icechunk/metadata-value.ts';

type Json = { [key: string]: MetadataValue };
const isObject = (v: MetadataValue | undefined): v is Json => !!v && typeof v === 'object' && !Array.isArray(v) && typeof v !== 'bigint';

export interface SplitTarget {
  path: string;
  dimensionNames: readonly (string | null)[] | null;
  rank: number;
}

function arrayMatches(condition: MetadataValue, target: SplitTarget): boolean {
  if (condition === 'AnyArray') return true;
  if (!isObject(condition)) return false;
  const regex = (v: MetadataValue | undefined) => (isObject(v) && typeof v.regex === 'string' ? new RegExp(v.regex) : undefined);
  if ('path_matches' in condition) return regex(condition.path_matches)?.test(target.path) ?? false;
  if ('name_matches' in condition) return regex(condition.name_matches)?.test(target.path.slice(target.path.lastIndexOf('/') + 1)) ?? false;
  if (Array.isArray(condition.and)) return condition.and.every((c) => arrayMatches(c, target));
  if (Array.isArray(condition.or)) return condition.or.some((c) => arrayMatches(c, target));
  return false;
}

function dimensionMatches(condition: MetadataValue | undefined, axis: number, name: string | null): boolean {
  if (condition === 'Any') return true;
  if (!isObject(condition)) return false;
  if ('Axis' in condition) return Number(condition.Axis) === axis;
  if ('DimensionName' in condition) return name !== null && condition.DimensionName === name;
  return false;
}

/** Chunks per manifest along each dimension (undefined: not split along it). */
export function splitSizesFor(manifestConfig: MetadataValue, target: SplitTarget): (number | undefined)[] {
  const sizes: (number | undefined)[] = new Array(target.rank).fill(undefined);
  const splitting = isObject(manifestConfig) ? manifestConfig.splitting : undefined;
  const rules = isObject(splitting) && Array.isArray(splitting.split_sizes) ? splitting.split_sizes : [];
  for (const rule of rules) {
    if (!Array.isArray(rule)) continue;
    const [condition, dimRules, ...extra] = rule;
    if (condition === undefined || dimRules === undefined || extra.length > 0 || !arrayMatches(condition, target)) continue;
    const dims = Array.isArray(dimRules) ? dimRules : [];
    for (let axis = 0; axis < target.rank; axis++) {
      const name = target.dimensionNames?.[axis] ?? null;
      const hit = dims.find((d) => isObject(d) && dimensionMatches(d.condition, axis, name));
      const n = isObject(hit) ? Number(hit.num_chunks) : NaN;
      if (Number.isInteger(n) && n > 0) sizes[axis] = n;
    }
    return sizes;
  }
  return sizes;
}

export interface ManifestGroup {
  extents: ChunkIndexRange[];
  refs: ChunkRef[];
}

/**
 * Groups sorted refs into manifests. Unsplit dimensions get the tight extent of the refs; split
 * ones get the split region `[k*n, (k+1)*n)`, so extents never overlap.
 */
export function groupRefs(refs: readonly ChunkRef[], sizes: readonly (number | undefined)[]): ManifestGroup[] {
  // Per group: its refs and the least and greatest index along each dimension.
  const groups = new Map<string, { refs: ChunkRef[]; lo: number[]; hi: number[] }>();
  for (const ref of refs) {
    const key = groupKey(ref.index, sizes);
    const group = groups.get(key);
    if (group) {
      group.refs.push(ref);
      widen(group, ref.index);
    } else {
      groups.set(key, { refs: [ref], lo: [...ref.index], hi: [...ref.index] });
    }
  }
  return [...groups.values()].map(({ refs: list, lo, hi }) => ({
    refs: list,
    extents: zipMap(zipMap(lo, hi, (from, last) => ({ from, last })), sizes, ({ from, last }, n) => {
      // A split dimension: every ref of the group lies in the same region [k*n, (k+1)*n).
      if (n) {
        const start = Math.floor(from / n) * n;
        return { from: start, to: start + n };
      }
      return { from, to: last + 1 };
    }),
  }));
}

/**
 * Stretches a group's least and greatest index over `index`, in place (this runs once per chunk
 * ref of a commit: no array per ref). Same rank as the group: refs share a key only if they do.
 */
function widen(group: { lo: number[]; hi: number[] }, index: readonly number[]): void {
  // Indexed, not for..of: unoptimised code allocates an iterator result per step.
  for (let d = 0; d < index.length; d++) {
    const c = index[d];
    const lo = group.lo[d];
    const hi = group.hi[d];
    if (c === undefined || lo === undefined || hi === undefined) throw floeError('INVALID_ARGUMENT', `chunk index [${index.join(', ')}] has another rank than its manifest group`);
    if (c < lo) group.lo[d] = c;
    if (c > hi) group.hi[d] = c;
  }
}

/** Which split region `index` falls in, as a map key (one string per ref; unsplit dimensions are 0). */
function groupKey(index: readonly number[], sizes: readonly (number | undefined)[]): string {
  if (index.length !== sizes.length) throw floeError('INVALID_ARGUMENT', `chunk index [${index.join(', ')}] has another rank than the split sizes (${sizes.length})`);
  // sizes[d] is undefined for an unsplit dimension (and d < sizes.length, checked above).
  return index.map((c, d) => {
    const n = sizes[d];
    return n ? Math.floor(c / n) : 0;
  }).join(',');
}
