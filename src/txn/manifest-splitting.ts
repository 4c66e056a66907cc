// Manifest splitting by the config's rules: which split sizes apply (split-rules.ts, the
// reference's resolution), then the grouping of an array's chunk refs into manifests. The rules
// (with their Rust regex engine and the config reader) load on the first commit that has any:
// most repositories set none, and `import 'floe'` should not pay for them.
import { floeError } from '../errors.ts';
import { zipMap } from '../engine/indexing.ts';
import type { ChunkIndexRange } from '../format/icechunk/snapshot.ts';
import type { MetadataValue } from '../format/icechunk/metadata-value.ts';
import type { ManifestSplitRule } from '../format/icechunk/repo-config.ts';
import type { SplitTarget } from './split-rules.ts';

export type { SplitTarget } from './split-rules.ts';

/**
 * Chunks per manifest along each dimension (undefined: not split along it). `manifestConfig` is
 * the config's `manifest` in its stored (serde) form, as commits carry it.
 */
export async function splitSizesFor(manifestConfig: MetadataValue, target: SplitTarget): Promise<(number | undefined)[]> {
  // No manifest config (the default): nothing is split, and nothing needs loading.
  if (manifestConfig === null || typeof manifestConfig !== 'object') return new Array<number | undefined>(target.rank).fill(undefined);
  const [{ splitSizesForRules }, { decodeStoredConfig }] = await splittingModules();
  let rules = rulesByConfig.get(manifestConfig);
  if (rules === undefined) {
    // Read by the config model (which checked the rules when the config was set).
    rules = decodeStoredConfig({ manifest: manifestConfig }).manifest?.splitting?.split_sizes ?? [];
    rulesByConfig.set(manifestConfig, rules);
  }
  return splitSizesForRules(rules, target);
}

// Read once per stored value (a commit passes the same one for every array).
const rulesByConfig = new WeakMap<object, readonly ManifestSplitRule[]>();

type SplittingModules = [typeof import('./split-rules.ts'), typeof import('../format/icechunk/repo-config-codec.ts')];
let loadedSplitting: Promise<SplittingModules> | undefined;

/** The rule resolver and the config reader, loaded once on first use. */
function splittingModules(): Promise<SplittingModules> {
  loadedSplitting ??= Promise.all([import('./split-rules.ts'), import('../format/icechunk/repo-config-codec.ts')]);
  return loadedSplitting;
}

/**
 * Which split region `index` falls in, as a map key (one string per ref; unsplit dimensions are
 * 0): region k along a dimension split by n holds the chunk indices [k*n, (k+1)*n).
 */
export function regionKey(index: readonly number[], sizes: readonly (number | undefined)[]): string {
  if (index.length !== sizes.length) throw floeError('INVALID_ARGUMENT', `chunk index [${index.join(', ')}] has another rank than the split sizes (${sizes.length})`);
  // sizes[d] is undefined for an unsplit dimension (and d < sizes.length, checked above).
  return index.map((c, d) => {
    const n = sizes[d];
    return n ? Math.floor(c / n) : 0;
  }).join(',');
}

/**
 * The region key of the one split region that holds the whole box `extents` (to exclusive), or
 * undefined when the box crosses a region boundary, is empty, or has another rank. A stored
 * manifest is reusable as it is only if it lies in one region.
 */
export function regionHolding(extents: readonly ChunkIndexRange[], sizes: readonly (number | undefined)[]): string | undefined {
  if (extents.length !== sizes.length) return undefined;
  const key: number[] = [];
  for (const [d, { from, to }] of extents.entries()) {
    if (to <= from) return undefined;
    const n = sizes[d];
    const region = n ? Math.floor(from / n) : 0;
    if (n && Math.floor((to - 1) / n) !== region) return undefined;
    key.push(region);
  }
  return key.join(',');
}

/** The chunk-index box of the region named by `key` (unsplit dimensions: unbounded). */
export function regionBox(key: string, sizes: readonly (number | undefined)[]): ChunkIndexRange[] {
  const regions = key === '' ? [] : key.split(',').map(Number);
  return zipMap(regions, sizes, (k, n) => (n ? { from: k * n, to: (k + 1) * n } : { from: 0, to: Number.POSITIVE_INFINITY }));
}
