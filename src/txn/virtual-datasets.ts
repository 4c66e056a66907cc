// The public entry point of virtual datasets (docs/virtual.md). The scanners, the kerchunk reader
// and the import load on the first call: `import 'floe'` should not pay for them.
import type { Session } from './session.ts';
import type { VirtualizeOptions, VirtualizeResult } from './virtualize.ts';

/**
 * Records existing files (NetCDF-3, kerchunk references) in `session` as Zarr arrays whose chunks
 * are virtual refs into those files, without copying their bytes; returns what was imported and
 * what was skipped, per variable, and why. Commit the session to version them.
 */
export async function virtualize(session: Session, sources: readonly string[], options: VirtualizeOptions = {}): Promise<VirtualizeResult> {
  const { virtualize: run } = await import('./virtualize.ts');
  return run(session, sources, options);
}
