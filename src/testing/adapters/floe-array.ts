// Floe's plain Zarr v3 arrays (src/engine) behind the ArrayAdapter contract.
import { ZarrArray } from '../../engine/array.ts';
import { slice, type Selection, type SelectionItem } from '../../engine/selection.ts';
import type { ZarrStore } from '../../engine/store.ts';
import { arrayMetadataInput, type ArrayCase } from '../arbitraries/array-metadata.ts';
import { bytesOf, dataTypeNamed, toArrayData } from '../arbitraries/data-types.ts';
import type { ModelItem } from '../model/array-model.ts';
import type { ArrayAdapter, ArrayHandle } from './types.ts';

export const toFloeSelection = (items: readonly ModelItem[]): Selection =>
  items.map((it): SelectionItem => (it.kind === 'index' ? it.i : it.kind === 'all' ? null : it.kind === 'ellipsis' ? '...' : slice(it.start, it.stop, it.step)));

function handle(array: ZarrArray): ArrayHandle {
  const d = dataTypeNamed(array.dtype);
  return {
    async read(selection) {
      const got = await array.get(toFloeSelection(selection));
      return { shape: got.shape, values: bytesOf(got.data) };
    },
    write: (selection, values) => array.set(toFloeSelection(selection), toArrayData(d, values)),
  };
}

/** Floe's plain Zarr v3 arrays ({@link ZarrArray}) as an {@link ArrayAdapter}; it writes every case. */
export function floeArrayAdapter(): ArrayAdapter {
  return {
    name: 'floe',
    canWrite: () => true,
    createArray: async (store: ZarrStore, path: string, c: ArrayCase) => handle(await ZarrArray.create(store, path, arrayMetadataInput(c))),
    openArray: async (store: ZarrStore, path: string) => handle(await ZarrArray.open(store, path)),
  };
}
