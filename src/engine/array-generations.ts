// Stale array handles. Two handles on one array each hold its metadata; when one resizes the array
// (or replaces it), the other's shape is out of date, and a write through it would put chunks
// outside the new shape that nothing ever reads. Every layout change through a handle bumps a
// generation kept per (store, array path); a handle remembers the generation it was made at and
// checks it before each write: STALE_HANDLE when it moved. The check is in memory and costs no
// I/O, so it covers the handles of one store object (one session, one `openStore`): another
// process, or another store object over the same files, is not seen.
import { floeError } from '../errors.ts';
import { NumpyChunkStore } from './numpy-chunk-store.ts';
import type { ZarrStore } from './store.ts';

interface Layout {
  readonly generation: number;
  readonly shape: readonly number[];
}

const layouts = new WeakMap<ZarrStore, Map<string, Layout>>();

/** The store whose keys a handle's metadata lives under: a v1/v2 array's chunk codec store is a view of it. */
function ownerOf(store: ZarrStore): ZarrStore {
  return store instanceof NumpyChunkStore ? ownerOf(store.base) : store;
}

/** The generation of the array at `path` in `store`: what a handle made now remembers. */
export function layoutGeneration(store: ZarrStore, path: string): number {
  return layouts.get(ownerOf(store))?.get(path)?.generation ?? 0;
}

/** Records a layout change (resize, replacement) of the array at `path`: every older handle is stale. */
export function changeLayout(store: ZarrStore, path: string, shape: readonly number[]): void {
  const owner = ownerOf(store);
  let paths = layouts.get(owner);
  if (!paths) layouts.set(owner, (paths = new Map()));
  paths.set(path, { generation: (paths.get(path)?.generation ?? 0) + 1, shape: [...shape] });
}

/** Throws STALE_HANDLE when the array changed since a handle of generation `generation` was made. */
export function requireGeneration(store: ZarrStore, path: string, generation: number, handleShape: readonly number[]): void {
  const layout = layouts.get(ownerOf(store))?.get(path);
  if (!layout || layout.generation === generation) return;
  throw floeError('STALE_HANDLE',
    `array ${path} was resized or replaced through another handle since this one (shape [${handleShape.join(', ')}]) was opened; ` +
      `its shape is now [${layout.shape.join(', ')}]. Nothing was written: open the array again and retry`,
    { where: path, details: { handleShape: [...handleShape], storedShape: [...layout.shape] } });
}
