// Zarr v2 data another implementation wrote: zarrita.js' v2 fixture group (zarr-python 2.18.1,
// test/fixtures/zarr/zarrita-v2), read back to the values zarr-python 2.13 reads from it
// (expected-v2.json; see PROVENANCE.md): every array, the numcodecs filters and compressors
// (lz4, shuffle, bitround, fixedscaleoffset, json2) included, and each converts to v3 identically.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { openArray, openGroup, openStore } from '../../src/engine/api.ts';
import { ZarrArray } from '../../src/engine/array.ts';
import { convertV2ToV3 } from '../../src/engine/convert-v2.ts';
import { MemoryStorage } from '../../src/engine/storage/memory.ts';
import { StorageStore } from '../../src/engine/store.ts';
import { V2Array } from '../../src/engine/v2-array.ts';
import { fixturePath } from '../support/fixtures.ts';
import { canonical, type Canonical } from '../support/python-zarr.ts';

interface Expected {
  readonly attrs: Record<string, unknown>;
  readonly groups: Record<string, Record<string, unknown>>;
  readonly arrays: Record<string, Canonical>;
}

const expected = JSON.parse(readFileSync(fixturePath('zarr/zarrita-v2/expected-v2.json'), 'utf8')) as Expected;
const store = () => openStore(fixturePath('zarr/zarrita-v2/data.zarr'), { readOnly: true });

const NAMES = Object.keys(expected.arrays).sort();
const READ = NAMES;

describe('zarrita.js v2 fixtures (zarr-python 2.18.1)', () => {
  it('holds 32 arrays, all of which Floe reads, and a group with attributes', () => {
    expect(NAMES.length).toBe(32);
    expect(expected.attrs).toEqual({ answer: 42 });
  });

  it.each(READ)('%s reads as zarr-python reads it', async (name) => {
    const array = await openArray(store(), `/${name}`);
    expect(array).toBeInstanceOf(V2Array);
    expect(canonical(await array.get())).toEqual({ ...expected.arrays[name], read_by: undefined });
  });

  it('opens the group and its children from .zmetadata, and without it from the documents', async () => {
    for (const useConsolidated of [true, false]) {
      const group = await openGroup(store(), '/', { useConsolidated });
      expect([group.zarrFormat, group.consolidated !== undefined, group.attributes]).toEqual([2, useConsolidated, expected.attrs]);
      const children = await group.children();
      expect(children.filter((c) => c.kind === 'array').map((c) => c.name)).toEqual(NAMES);
      const sub = await group.openGroup('my group with spaces');
      expect(sub.attributes).toEqual(expected.groups['my group with spaces']);
      const first = await group.openArray(READ[0] ?? '');
      expect(canonical(await first.get())).toEqual(expected.arrays[READ[0] ?? '']);
    }
  });

  it.each(READ)('%s converts to v3 with identical values', async (name) => {
    const dst = new StorageStore(new MemoryStorage());
    const converted = await convertV2ToV3(store(), dst, '/c', { srcPath: `/${name}` });
    expect(converted.arrays).toBe(1);
    const v3 = await ZarrArray.open(dst, '/c');
    expect(canonical(await v3.get())).toEqual({ ...expected.arrays[name], read_by: undefined });
  });
});
