// Every array written by zarr-python 3 (zarrita's fixtures) and every hand-made edge case reads to
// exactly the values in the expected files.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { openStore } from '../../src/engine/api.ts';
import { ZarrArray } from '../../src/engine/array.ts';
import { ZarrGroup } from '../../src/engine/group.ts';
import type { ZarrStore } from '../../src/engine/store.ts';
import { fixturePath } from '../support/fixtures.ts';
import { normalizeExpected, toPlainValues } from '../support/values.ts';

interface Expected {
  data_type: string;
  shape: number[];
  fill_value: unknown;
  values_c_order_flat: unknown[];
}

async function walkArrays(store: ZarrStore, path: string): Promise<string[]> {
  const group = await ZarrGroup.open(store, path);
  const out: string[] = [];
  for (const child of await group.children()) {
    if (child.kind === 'array') out.push(child.path.slice(1));
    else out.push(...(await walkArrays(store, child.path)));
  }
  return out;
}

function suite(title: string, root: string, expectedFile: string) {
  const expected = JSON.parse(readFileSync(expectedFile, 'utf8')) as Record<string, Expected>;
  describe(title, () => {
    it('finds, by walking the hierarchy, exactly the arrays that have expectations', async () => {
      const arrays = await walkArrays(openStore(root, { readOnly: true }), '/');
      expect(arrays.sort()).toEqual(Object.keys(expected).sort());
    });
    for (const [name, exp] of Object.entries(expected)) {
      it(`reads ${name}`, async () => {
        const store = openStore(root, { readOnly: true });
        const array = await ZarrArray.open(store, name);
        expect(array.dtype).toBe(exp.data_type);
        expect([...array.shape]).toEqual(exp.shape);
        const result = await array.get();
        expect(result.shape).toEqual(exp.shape);
        expect(toPlainValues(result.data, exp.data_type)).toEqual(normalizeExpected(exp.values_c_order_flat, exp.data_type));
      });
    }
  });
}

suite('zarr-python 3 fixtures', fixturePath('zarr', 'zarrita-v3', 'fixtures', 'v3', 'data.zarr'), fixturePath('zarr', 'zarrita-v3', 'expected-v3.json'));
suite('v3 edge cases', fixturePath('zarr', 'v3-edge'), fixturePath('zarr', 'v3-edge', 'expected-v3-edge.json'));

describe('hierarchy written by zarr-python 3', () => {
  it('lists the root group children with their kinds', async () => {
    const store = openStore(fixturePath('zarr', 'zarrita-v3', 'fixtures', 'v3', 'data.zarr'), { readOnly: true });
    const root = await ZarrGroup.open(store, '/');
    const children = await root.children();
    expect(children.find((c) => c.name === 'my group with spaces')?.kind).toBe('group');
    expect(children.find((c) => c.name === '3d.chunked.i2')?.kind).toBe('array');
    const group = await ZarrGroup.open(store, '/my group with spaces');
    expect(group.attributes).toEqual({ description: 'A group with spaces in the name' });
    const consolidated = await ZarrGroup.open(store, '/consolidated');
    expect(consolidated.attributes).toEqual({ answer: 42 });
  });

  it('keeps the payload of a hex NaN fill value bit-exact', async () => {
    const store = openStore(fixturePath('zarr', 'v3-edge'), { readOnly: true });
    const array = await ZarrArray.open(store, 'float32.fill_hex_nan.nochunks');
    const result = await array.get();
    const bits = new Uint32Array((result.data as Float32Array).buffer);
    expect(Array.from(bits)).toEqual([0x7fc00001, 0x7fc00001, 0x7fc00001]);
  });
});
