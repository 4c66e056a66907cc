// Which split sizes an array's manifests take, resolved as the reference Icechunk 2.2.2 does
// (`ManifestSplittingConfig::get_split_sizes`): the rules are visited in order, every rule whose
// array condition matches takes part, and each dimension takes its size from the first of them
// with a dimension condition that matches it (within a rule, the first such condition). A later
// rule never overrides a dimension an earlier one sized. Regexes are Rust's, matched anywhere in
// the text (rust-regex.ts); one that does not compile matches nothing.
import type { ManifestSplitCondition, ManifestSplitDimCondition, ManifestSplitRule } from '../format/icechunk/repo-config.ts';
import { rustRegexMatches } from './rust-regex.ts';

/** The array being split: its node path ('/a/b'), dimension names (null: none set) and rank. */
export interface SplitTarget {
  path: string;
  dimensionNames: readonly (string | null)[] | null;
  rank: number;
}

/** The node's name, the last segment of its path; the root has none. */
function nodeName(path: string): string | undefined {
  return path === '/' ? undefined : path.slice(path.lastIndexOf('/') + 1);
}

/** Whether an array condition holds for the array at `path` (`name_matches` tests its name, `path_matches` its full path). */
export function arrayConditionMatches(condition: ManifestSplitCondition, path: string): boolean {
  if (condition === 'any_array') return true;
  if ('and' in condition) return condition.and.every((c) => arrayConditionMatches(c, path));
  if ('or' in condition) return condition.or.some((c) => arrayConditionMatches(c, path));
  if ('path_matches' in condition) return rustRegexMatches(condition.path_matches.regex, path);
  const name = nodeName(path);
  return name !== undefined && rustRegexMatches(condition.name_matches.regex, name);
}

/** Whether a dimension condition holds for dimension `axis`; a `DimensionName` regex never matches an unnamed one. */
export function dimensionConditionMatches(condition: ManifestSplitDimCondition, axis: number, name: string | null): boolean {
  if (condition === 'Any') return true;
  if ('Axis' in condition) return condition.Axis === axis;
  return name !== null && rustRegexMatches(condition.DimensionName, name);
}

/** Chunks per manifest along each dimension of `target` (undefined: not split along it). */
export function splitSizesForRules(rules: readonly ManifestSplitRule[], target: SplitTarget): (number | undefined)[] {
  const sizes = new Array<number | undefined>(target.rank).fill(undefined);
  let unsized = target.rank;
  for (const [condition, dims] of rules) {
    if (unsized === 0) break;
    if (!arrayConditionMatches(condition, target.path)) continue;
    for (let axis = 0; axis < target.rank; axis++) {
      if (sizes[axis] !== undefined) continue;
      const name = target.dimensionNames?.[axis] ?? null;
      const dim = dims.find((d) => dimensionConditionMatches(d.condition, axis, name));
      if (dim === undefined) continue;
      sizes[axis] = dim.num_chunks;
      unsized--;
    }
  }
  return sizes;
}
