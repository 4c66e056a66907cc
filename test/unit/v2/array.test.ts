// Zarr v2 arrays and groups through the engine: the keys they write, fill handling (erased fill
// chunks; a null fill writes chunks instead), resize, attributes, records, 0-d arrays, version
// detection and the errors for nodes that are not there or not of the asked version.
import { describe, expect, it } from 'vitest';
import { createArray, createGroup, openArray, openGroup } from '../../../src/engine/api.ts';
import { ZarrArray } from '../../../src/engine/array.ts';
import { openNode, ZarrGroup } from '../../../src/engine/group.ts';
import { slice } from '../../../src/engine/selection.ts';
import { MemoryStorage } from '../../../src/engine/storage/memory.ts';
import { StorageStore } from '../../../src/engine/store.ts';
import { V2Array } from '../../../src/engine/v2-array.ts';
import { isFloeError } from '../../../src/errors.ts';
import { storeKeys } from '../../support/store-keys.ts';

const store = () => new StorageStore(new MemoryStorage());
const text = async (s: StorageStore, key: string) => new TextDecoder().decode((await s.get(key)) ?? new Uint8Array());
const keys = storeKeys;

describe('Zarr v2 arrays', () => {
  it('write .zarray, .zattrs and chunk keys with either separator; unwritten chunks read as fill', async () => {
    for (const [separator, chunkKey] of [['.', 'a/1.0'], ['/', 'a/1/0']] as const) {
      const s = store();
      const a = await createArray(s, '/a', { zarrFormat: 2, shape: [4, 3], chunks: [2, 3], dtype: '<i4', fillValue: -1, dimensionSeparator: separator, attributes: { units: 'm' } });
      await a.set([slice(2, 4)], Int32Array.of(1, 2, 3, 4, 5, 6));
      expect(await keys(s)).toEqual(['a/.zarray', 'a/.zattrs', chunkKey]);
      const back = await openArray(s, '/a');
      expect([back instanceof V2Array, back.attributes, Array.from((await back.get()).data as Int32Array)]).toEqual([true, { units: 'm' }, [-1, -1, -1, -1, -1, -1, 1, 2, 3, 4, 5, 6]]);
    }
  });

  it('erase chunks that end up all fill, but write them when the fill value is null', async () => {
    const s = store();
    const filled = await createArray(s, '/f', { zarrFormat: 2, shape: [4], chunks: [2], dtype: '<f8', fillValue: 'NaN' });
    await filled.set(undefined, Float64Array.of(1, 2, NaN, NaN));
    expect(await keys(s)).toEqual(['f/.zarray', 'f/0']);
    const undefinedFill = await createArray(s, '/n', { zarrFormat: 2, shape: [4], chunks: [2], dtype: '<f8', fillValue: null, compressor: null });
    await undefinedFill.set(undefined, Float64Array.of(0, 0, 0, 0));
    expect((await keys(s)).filter((k) => k.startsWith('n/'))).toEqual(['n/.zarray', 'n/0', 'n/1']);
    expect(Array.from((await (await openArray(s, '/n')).get()).data as Float64Array)).toEqual([0, 0, 0, 0]);
  });

  it('resize deletes chunks outside the new shape and rewrites .zarray', async () => {
    const s = store();
    const a = await createArray(s, '/a', { zarrFormat: 2, shape: [6], chunks: [2], dtype: '|u1', compressor: { id: 'zlib', level: 1 } });
    await a.set(undefined, Uint8Array.of(1, 2, 3, 4, 5, 6));
    const smaller = await a.resize([3]);
    expect(await keys(s)).toEqual(['a/.zarray', 'a/0', 'a/1']);
    expect(JSON.parse(await text(s, 'a/.zarray')).shape).toEqual([3]);
    expect(Array.from((await smaller.get()).data as Uint8Array)).toEqual([1, 2, 3]);
    const reopened = await openArray(s, '/a');
    // The kept edge chunk still holds 4 beyond the old edge, as zarr-python's resize leaves it.
    expect([reopened.shape, Array.from((await (await reopened.resize([5])).get()).data as Uint8Array)]).toEqual([[3], [1, 2, 3, 4, 0]]);
  });

  it('setAttributes writes .zattrs', async () => {
    const s = store();
    const a = await createArray(s, '/a', { zarrFormat: 2, shape: [1], chunks: [1], dtype: '<i2' });
    const b = await a.setAttributes({ long_name: 'x', scale: 0.5 });
    expect([b.attributes, JSON.parse(await text(s, 'a/.zattrs'))]).toEqual([{ long_name: 'x', scale: 0.5 }, { long_name: 'x', scale: 0.5 }]);
  });

  it('reads and writes records field by field, sub-array fields included', async () => {
    const s = store();
    const a = (await createArray(s, '/r', { zarrFormat: 2, shape: [3], chunks: [2], dtype: [['id', '>u2'], ['xy', '<f4', [2]], ['name', '<U2']] })) as V2Array;
    await a.setFields(undefined, { id: Uint16Array.of(1, 2, 3), xy: Float32Array.of(0.5, 1, 1.5, 2, 2.5, 3), name: ['a', 'bé', ''] });
    const { shape, fields } = await ((await openArray(s, '/r')) as V2Array).getFields([slice(1, 3)]);
    expect([shape, Array.from(fields.id as Uint16Array), Array.from(fields.xy as Float32Array), fields.name]).toEqual([[2], [2, 3], [1.5, 2, 2.5, 3], ['bé', '']]);
    expect(Array.from(((await a.get([0])).data as Uint8Array).subarray(0, 2))).toEqual([0, 1]); // big-endian id
  });

  it('holds datetimes as int64 and 0-d arrays under chunk key "0"', async () => {
    const s = store();
    const t = await createArray(s, '/t', { zarrFormat: 2, shape: [2], chunks: [2], dtype: '<M8[ns]', fillValue: 'NaT' });
    expect(Array.from((await t.get()).data as BigInt64Array)).toEqual([-(2n ** 63n), -(2n ** 63n)]);
    await t.set(undefined, BigInt64Array.of(1n, 1_700_000_000_000_000_000n));
    expect(Array.from((await (await openArray(s, '/t')).get()).data as BigInt64Array)).toEqual([1n, 1_700_000_000_000_000_000n]);
    const scalar = await createArray(s, '/z', { zarrFormat: 2, shape: [], chunks: [], dtype: '<f4', fillValue: 0 });
    await scalar.set(undefined, Float32Array.of(2.5));
    expect([await s.get('z/0') !== undefined, Array.from((await (await openArray(s, '/z')).get()).data as Float32Array)]).toEqual([true, [2.5]]);
  });

  it('refuses to create over an existing node unless overwrite, and writes nothing to a read-only store', async () => {
    const s = store();
    const input = { zarrFormat: 2 as const, shape: [2], chunks: [2], dtype: '<i4' };
    await createArray(s, '/a', input);
    await expect(createArray(s, '/a', input)).rejects.toSatisfy((e) => isFloeError(e, 'ALREADY_EXISTS'));
    await ZarrArray.create(s, '/v3', { shape: [1], chunkShape: [1], dataType: 'int8' });
    await expect(createArray(s, '/v3', input)).rejects.toSatisfy((e) => isFloeError(e, 'ALREADY_EXISTS'));
    const replaced = await createArray(s, '/v3', { ...input, overwrite: true });
    expect([replaced instanceof V2Array, await s.get('v3/zarr.json')]).toEqual([true, undefined]);
    const ro = new StorageStore(new MemoryStorage(), { readOnly: true });
    await expect(createArray(ro, '/a', input)).rejects.toSatisfy((e) => isFloeError(e, 'READ_ONLY'));
  });
});

describe('version detection and v2 groups', () => {
  it('opens v3, v2 arrays and groups by what is stored, and only the version asked for', async () => {
    const s = store();
    const root = await createGroup(s, '/', { zarrFormat: 2, attributes: { title: 't' } });
    await root.createArray('a', { zarrFormat: 2, shape: [1], chunks: [1], dtype: '|b1' });
    await root.createGroup('g', { attributes: { level: 1 } });
    await ZarrArray.create(s, '/v3', { shape: [1], chunkShape: [1], dataType: 'int8' });
    expect(await keys(s)).toEqual(['.zattrs', '.zgroup', 'a/.zarray', 'g/.zattrs', 'g/.zgroup', 'v3/zarr.json']);
    const node = await openNode(s, '/');
    expect([node instanceof ZarrGroup && node.zarrFormat, node instanceof ZarrGroup && node.attributes]).toEqual([2, { title: 't' }]);
    expect(await (node as ZarrGroup).children()).toEqual([
      { name: 'a', path: '/a', kind: 'array' }, { name: 'g', path: '/g', kind: 'group' },
    ]);
    expect((await openGroup(s, '/g')).attributes).toEqual({ level: 1 });
    expect(await openArray(s, '/v3')).not.toBeInstanceOf(V2Array);
    await expect(openArray(s, '/a', { zarrFormat: 3 })).rejects.toSatisfy((e) => isFloeError(e, 'NOT_FOUND'));
    await expect(openArray(s, '/v3', { zarrFormat: 2 })).rejects.toSatisfy((e) => isFloeError(e, 'NOT_FOUND'));
    await expect(openArray(s, '/nothing')).rejects.toSatisfy((e) => isFloeError(e, 'NOT_FOUND') && /neither zarr.json nor .zarray/.test((e as Error).message));
    await expect(openGroup(s, '/a')).rejects.toSatisfy((e) => isFloeError(e, 'NODE_TYPE_MISMATCH'));
    await expect(root.openArray('g')).rejects.toSatisfy((e) => isFloeError(e, 'NODE_TYPE_MISMATCH'));
  });

  it('keeps a hierarchy to one version', async () => {
    const s = store();
    const v2 = await createGroup(s, '/old', { zarrFormat: 2 });
    const v3 = await createGroup(s, '/new');
    await expect(v2.createArray('x', { shape: [1], chunkShape: [1], dataType: 'int8' })).rejects.toSatisfy((e) => isFloeError(e, 'INVALID_ARGUMENT'));
    await expect(v3.createArray('x', { zarrFormat: 2, shape: [1], chunks: [1], dtype: '|i1' })).rejects.toSatisfy((e) => isFloeError(e, 'INVALID_ARGUMENT'));
    expect((await v2.createGroup('sub')).zarrFormat).toBe(2);
  });

  it('keeps an existing v2 group unless attributes or overwrite say otherwise; erase removes a child', async () => {
    const s = store();
    await createGroup(s, '/g', { zarrFormat: 2, attributes: { a: 1 } });
    expect((await createGroup(s, '/g', { zarrFormat: 2 })).attributes).toEqual({ a: 1 });
    expect((await createGroup(s, '/g', { zarrFormat: 2, attributes: { b: 2 } })).attributes).toEqual({ b: 2 });
    const g = await openGroup(s, '/g');
    await g.createArray('x', { zarrFormat: 2, shape: [1], chunks: [1], dtype: '<u4' });
    await g.erase('x');
    expect(await keys(s)).toEqual(['g/.zattrs', 'g/.zgroup']);
    await expect(createGroup(s, '/g', { zarrFormat: 2, overwrite: true })).resolves.toBeInstanceOf(ZarrGroup);
    expect(await keys(s)).toEqual(['g/.zgroup']);
  });
});
