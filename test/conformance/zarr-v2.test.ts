// Zarr v2 data another implementation wrote: zarrita.js' v2 fixture group (zarr-python 2.18.1,
// test/fixtures/zarr/zarrita-v2), read back to the values zarr-python 2.13 reads from it
// (expected-v2.json; see PROVENANCE.md). Arrays whose codecs Floe does not implement yet (the
// numcodecs codecs, issue 21 stage 2) are refused by name with the list of supported ones.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { openArray, openGroup, openStore } from '../../src/engine/api.ts';
import { ZarrArray } from '../../src/engine/array.ts';
import { convertV2ToV3 } from '../../src/engine/convert-v2.ts';
import { MemoryStorage } from '../../src/engine/storage/memory.ts';
import { StorageStore } from '../../src/engine/store.ts';
import { V2Array } from '../../src/engine/v2-array.ts';
import { isFloeError } from '../../src/errors.ts';
import { fixturePath } from '../support/fixtures.ts';
import { canonical, type Canonical } from '../support/python-zarr.ts';

interface Expected {
  readonly attrs: Record<string, unknown>;
  readonly groups: Record<string, Record<string, unknown>>;
  readonly arrays: Record<string, Canonical>;
}

const expected = JSON.parse(readFileSync(fixturePath('zarr/zarrita-v2/expected-v2.json'), 'utf8')) as Expected;
const store = () => openStore(fixturePath('zarr/zarrita-v2/data.zarr'), { readOnly: true });

/** Arrays with a codec Floe refuses today, and the codec id the refusal must name. */
const REFUSED: Readonly<Record<string, string>> = {
  '1d.contiguous.bitround.f4': 'bitround',
  '1d.contiguous.delta.shuffle.i2': 'shuffle',
  '1d.contiguous.fixedscaleoffset.f4': 'fixedscaleoffset',
  '1d.contiguous.json2.O': 'json2',
  '1d.contiguous.lz4.i2': 'lz4',
  '1d.contiguous.shuffle.i2': 'shuffle',
};
/** Arrays conversion to v3 refuses: their compressor has no v3 codec Floe writes yet. */
const NOT_CONVERTIBLE: Readonly<Record<string, string>> = {
  '1d.contiguous.delta.i2': 'zlib',
  '1d.contiguous.zlib.i2': 'zlib',
};
const NAMES = Object.keys(expected.arrays).sort();
const READ = NAMES.filter((n) => !(n in REFUSED));

describe('zarrita.js v2 fixtures (zarr-python 2.18.1)', () => {
  it('holds 32 arrays, 26 of which Floe reads, and a group with attributes', () => {
    expect([NAMES.length, READ.length]).toEqual([32, 26]);
    expect(expected.attrs).toEqual({ answer: 42 });
  });

  it.each(READ)('%s reads as zarr-python reads it', async (name) => {
    const array = await openArray(store(), `/${name}`);
    expect(array).toBeInstanceOf(V2Array);
    expect(canonical(await array.get())).toEqual({ ...expected.arrays[name], read_by: undefined });
  });

  it.each(Object.entries(REFUSED))('%s is refused, naming %s and what Floe reads', async (name, id) => {
    const err = await openArray(store(), `/${name}`).catch((e: unknown) => e);
    expect(isFloeError(err, 'UNSUPPORTED')).toBe(true);
    expect((err as Error).message).toContain(`"${id}"`);
    expect((err as Error).message).toMatch(/Floe reads .*(blosc|vlen-utf8)/);
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

  it.each(READ)('%s converts to v3 with identical values, or is refused by compressor name', async (name) => {
    const dst = new StorageStore(new MemoryStorage());
    const refusal = NOT_CONVERTIBLE[name];
    const converted = convertV2ToV3(store(), dst, '/c', { srcPath: `/${name}` });
    if (refusal) {
      await expect(converted).rejects.toSatisfy((e: unknown) => isFloeError(e, 'UNSUPPORTED') && (e as Error).message.includes(`"${refusal}"`));
      return;
    }
    expect((await converted).arrays).toBe(1);
    const v3 = await ZarrArray.open(dst, '/c');
    expect(canonical(await v3.get())).toEqual({ ...expected.arrays[name], read_by: undefined });
  });
});
