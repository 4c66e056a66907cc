import { describe, expect, it } from 'vitest';
import { MemoryStorage } from '../../../src/engine/storage/memory.ts';
import { StorageStore } from '../../../src/engine/store.ts';
import { ZarrArray } from '../../../src/engine/array.ts';
import { ZarrGroup, openNode } from '../../../src/engine/group.ts';
import { slice } from '../../../src/engine/selection.ts';
import { isFloeError } from '../../../src/errors.ts';
import { storeKeys } from '../../support/store-keys.ts';

const store = () => new StorageStore(new MemoryStorage());

const keys = storeKeys;

describe('hierarchy', () => {
  it('creates nested groups and arrays and lists children with their kinds', async () => {
    const s = store();
    const root = await ZarrGroup.create(s, '/', { attributes: { title: 't' } });
    const g = await root.createGroup('climate');
    await g.createArray('temp', { shape: [2], chunkShape: [2], dataType: 'float32' });
    await ZarrArray.create(s, '/implicit/deep/x', { shape: [1], chunkShape: [1], dataType: 'int8' });
    expect(await root.children()).toEqual([
      { name: 'climate', path: '/climate', kind: 'group' },
      { name: 'implicit', path: '/implicit', kind: 'group' },
    ]);
    expect(await g.children()).toEqual([{ name: 'temp', path: '/climate/temp', kind: 'array' }]);
    const implicit = await openNode(s, '/implicit');
    expect(implicit).toBeInstanceOf(ZarrGroup);
    expect((implicit as ZarrGroup).metadata).toBeUndefined();
    await expect(openNode(s, '/nothing')).rejects.toSatisfy((e) => isFloeError(e, 'NOT_FOUND'));
    await expect(ZarrGroup.open(s, '/climate/temp')).rejects.toSatisfy((e) => isFloeError(e, 'NODE_TYPE_MISMATCH'));
  });

  it('refuses illegal node names and existing nodes unless overwriting', async () => {
    const s = store();
    const root = await ZarrGroup.create(s, '/');
    for (const bad of ['__x', '..', '.', 'a/b', '']) {
      await expect(root.createGroup(bad)).rejects.toSatisfy((e) => isFloeError(e, 'INVALID_NAME'));
    }
    await root.createArray('a', { shape: [1], chunkShape: [1], dataType: 'int8' });
    await expect(root.createArray('a', { shape: [1], chunkShape: [1], dataType: 'int8' })).rejects.toSatisfy((e) => isFloeError(e, 'ALREADY_EXISTS'));
    const replaced = await root.createArray('a', { shape: [3], chunkShape: [1], dataType: 'int8', overwrite: true });
    expect(replaced.shape).toEqual([3]);
  });

  it('erases a node and everything below it', async () => {
    const s = store();
    const root = await ZarrGroup.create(s, '/');
    const a = await root.createArray('a', { shape: [4], chunkShape: [2], dataType: 'int16' });
    await a.set(undefined, new Int16Array([1, 2, 3, 4]));
    await root.createArray('b', { shape: [1], chunkShape: [1], dataType: 'int8' });
    await root.erase('a');
    expect(await keys(s)).toEqual(['b/zarr.json', 'zarr.json']);
  });

  it('shrinks (deleting chunks wholly outside) and grows (new area reads as fill)', async () => {
    const s = store();
    const a = await ZarrArray.create(s, '/r', { shape: [6, 4], chunkShape: [2, 2], dataType: 'int32', fillValue: -1 });
    await a.set(undefined, Int32Array.from({ length: 24 }, (_, i) => i));
    const small = await a.resize([3, 2]);
    expect(await keys(s)).toEqual(['r/c/0/0', 'r/c/1/0', 'r/zarr.json']);
    expect(Array.from((await small.get()).data as Int32Array)).toEqual([0, 1, 4, 5, 8, 9]);
    const big = await small.resize([4, 3]);
    const grown = Array.from((await big.get()).data as Int32Array);
    // Row 3 and column 2 were in deleted chunks or outside: fill. (3,1) is still in chunk c/1/0,
    // written before the shrink: the spec says such data shows again.
    expect(grown).toEqual([0, 1, -1, 4, 5, -1, 8, 9, -1, 12, 13, -1]);
    const reopened = await ZarrArray.open(s, '/r');
    expect(reopened.shape).toEqual([4, 3]);
    await expect(a.resize([1])).rejects.toSatisfy((e) => isFloeError(e, 'INVALID_ARGUMENT'));
  });

  it('reads and writes 0-d arrays through the key "c"', async () => {
    const s = store();
    const a = await ZarrArray.create(s, '/z', { shape: [], chunkShape: [], dataType: 'float64', fillValue: 1.5 });
    expect(Array.from((await a.get()).data as Float64Array)).toEqual([1.5]);
    await a.set(undefined, 42);
    expect(await keys(s)).toContain('z/c');
    expect(Array.from((await a.get([])).data as Float64Array)).toEqual([42]);
  });

  it('supports the v2 chunk key encoding', async () => {
    const s = store();
    const a = await ZarrArray.create(s, '/v', { shape: [4, 4], chunkShape: [2, 2], dataType: 'uint8', chunkKeyEncoding: { name: 'v2' } });
    await a.set([slice(2, 4), slice(0, 2)], new Uint8Array([1, 2, 3, 4]));
    expect(await keys(s)).toEqual(['v/1.0', 'v/zarr.json']);
    expect(Array.from((await a.get([slice(2, 4), slice(0, 2)])).data as Uint8Array)).toEqual([1, 2, 3, 4]);
  });
});
