// The public entry points of the v1 and v2 to v3 conversions. Their code (plans, chunk copying,
// the v1 and v2 to v3 metadata mappings) loads on the first call: `import 'floe'` should not pay
// for a one-off migration most processes never run.
import type { ConvertOptions, ConvertResult } from './convert.ts';
import type { ConvertV2Options, ConvertV2Result } from './convert-v2.ts';
import type { ZarrStore } from './store.ts';

/** Converts the v1 array that `src` holds into a v3 array at `path` of `dst`. */
export async function convertV1ToV3(src: ZarrStore, dst: ZarrStore, path = '/', options: ConvertOptions = {}): Promise<ConvertResult> {
  const { convertV1ToV3: convert } = await import('./convert.ts');
  return convert(src, dst, path, options);
}

/** Converts the Zarr v2 node at `options.srcPath` of `src` (default the root) into Zarr v3 at `path` of `dst`. */
export async function convertV2ToV3(src: ZarrStore, dst: ZarrStore, path = '/', options: ConvertV2Options = {}): Promise<ConvertV2Result> {
  const { convertV2ToV3: convert } = await import('./convert-v2.ts');
  return convert(src, dst, path, options);
}
