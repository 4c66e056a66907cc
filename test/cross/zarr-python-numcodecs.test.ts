// Zarr v2 arrays with the numcodecs codecs, across zarr-python 2.13 / numcodecs 0.11 (Debian, run
// at test time) and Floe: zarr-python writes each case and Floe reads the values zarr-python
// reads; Floe writes the same values and zarr-python reads them back identically; and each
// zarr-python array converted to Zarr v3 (its codecs as numcodecs.<id>) reads identically too.
// Expected values always come from zarr-python reading a store, never from Floe.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openArray, openStore } from '../../src/engine/api.ts';
import { ZarrArray } from '../../src/engine/array.ts';
import { convertV2ToV3 } from '../../src/engine/convert-v2.ts';
import { MemoryStorage } from '../../src/engine/storage/memory.ts';
import { StorageStore } from '../../src/engine/store.ts';
import { V2Array } from '../../src/engine/v2-array.ts';
import { canonical, casesFile, describeWithPythonZarr, runPeer, type Canonical, type PeerCase } from '../support/python-zarr.ts';

const base = (name: string, dtype: PeerCase['dtype'], fill: PeerCase['fill'], patch: Partial<PeerCase>): PeerCase => ({
  name, dtype, fill, shape: [9, 7], chunks: [4, 3], order: 'C', separator: '.', compressor: null, filters: null, partial: fill !== null, ...patch,
});

const LABELS = ['a', 'é', 'z', 'aé', '日🧊'];

const CASES: readonly PeerCase[] = [
  base('delta-i2-as-i1', '<i2', 0, { filters: [{ id: 'delta', dtype: '<i2', astype: '|i1' }], compressor: { id: 'zlib', level: 1 } }),
  base('delta-big-endian-F', '>i4', 7, { filters: [{ id: 'delta', dtype: '>i4', astype: '>i4' }], order: 'F', separator: '/' }),
  base('fixedscaleoffset', '<f8', 'NaN', { filters: [{ id: 'fixedscaleoffset', offset: 1.5, scale: 100, dtype: '<f8', astype: '<i4' }], compressor: { id: 'blosc', cname: 'lz4', clevel: 5, shuffle: 1, blocksize: 0 } }),
  base('quantize', '<f4', -1.5, { filters: [{ id: 'quantize', digits: 2, dtype: '<f4', astype: '<f4' }], compressor: { id: 'zstd', level: 3 } }),
  base('bitround', '<f8', 0, { filters: [{ id: 'bitround', keepbits: 12 }], compressor: { id: 'blosc', cname: 'zstd', clevel: 3, shuffle: 2, blocksize: 0 }, order: 'F' }),
  base('packbits', '|b1', false, { filters: [{ id: 'packbits' }], compressor: { id: 'lz4', acceleration: 1 } }),
  base('astype', '<f8', 0.25, { filters: [{ id: 'astype', encode_dtype: '<f4', decode_dtype: '<f8' }], compressor: { id: 'bz2', level: 1 } }),
  base('categorize-U', '<U3', '', { filters: [{ id: 'categorize', labels: LABELS, dtype: '<U3', astype: '|u1' }], compressor: { id: 'lzma', format: 1, check: -1, preset: null, filters: null } }),
  base('categorize-O', '|O', '', { filters: [{ id: 'categorize', labels: LABELS, dtype: '|O', astype: '<u2' }], order: 'F' }),
  base('shuffle-bz2', '<i8', 3, { filters: [{ id: 'shuffle', elementsize: 8 }], compressor: { id: 'bz2', level: 9 } }),
  base('lz4', '<u4', 1, { compressor: { id: 'lz4', acceleration: 10 } }),
  base('crc32-zlib', '<i4', 0, { filters: [{ id: 'crc32' }], compressor: { id: 'zlib', level: 5 } }),
  base('adler32', '<f4', 0, { compressor: { id: 'adler32' } }),
  base('delta-shuffle-blosc', '<u2', 0, { filters: [{ id: 'delta', dtype: '<u2', astype: '<u2' }, { id: 'shuffle', elementsize: 2 }], compressor: { id: 'blosc', cname: 'blosclz', clevel: 9, shuffle: 0, blocksize: 0 } }),
  base('json2-F', '|O', '', { filters: [{ id: 'json2', encoding: 'utf-8', skipkeys: false, ensure_ascii: true, check_circular: true, allow_nan: true, sort_keys: true, indent: null, separators: [',', ':'], strict: true }], order: 'F' }),
  base('msgpack2', '|O', '', { filters: [{ id: 'msgpack2', raw: false, use_single_float: false, use_bin_type: true }], compressor: { id: 'zstd', level: 1 } }),
  base('vlen-array', '|O', null, { filters: [{ id: 'vlen-array', dtype: '<i2' }], compressor: { id: 'gzip', level: 1 }, partial: false }),
];

let dir = '';
let python: Record<string, Canonical> = {};

beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'floe-numcodecs-v2-'));
});
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describeWithPythonZarr('zarr-python 2 and Floe read each other\'s numcodecs-coded Zarr v2 arrays', () => {
  beforeAll(() => {
    const file = casesFile(dir, CASES);
    runPeer(['write', path.join(dir, 'python'), file]);
    python = JSON.parse(runPeer(['read', path.join(dir, 'python'), file])) as Record<string, Canonical>;
  }, 120_000);

  it('zarr-python wrote and read every case', () => {
    expect(Object.keys(python).sort()).toEqual(CASES.map((c) => c.name).sort());
  });

  it.each(CASES.map((c) => [c.name, c] as const))('Floe reads %s as zarr-python does', async (name) => {
    const array = await openArray(openStore(path.join(dir, 'python'), { readOnly: true }), `/${name}`);
    expect(array).toBeInstanceOf(V2Array);
    expect(canonical(await array.get())).toEqual(python[name]);
  });

  it.each(CASES.map((c) => [c.name, c] as const))('%s converted to Zarr v3 (numcodecs.* codecs) reads identically', async (name) => {
    const dst = new StorageStore(new MemoryStorage());
    await convertV2ToV3(openStore(path.join(dir, 'python'), { readOnly: true }), dst, '/c', { srcPath: `/${name}` });
    const v3 = await ZarrArray.open(dst, '/c');
    expect(canonical(await v3.get())).toEqual(python[name]);
  });

  it('zarr-python reads what Floe wrote, every case', async () => {
    const src = openStore(path.join(dir, 'python'), { readOnly: true });
    const dst = openStore(path.join(dir, 'floe'));
    for (const c of CASES) {
      const values = await (await openArray(src, `/${c.name}`)).get();
      const array = await V2Array.createAt(dst, `/${c.name}`, {
        zarrFormat: 2, shape: c.shape, chunks: c.chunks, dtype: c.dtype, compressor: c.compressor, filters: c.filters,
        fillValue: c.fill, order: c.order, dimensionSeparator: c.separator,
      });
      await array.set(undefined, values.data);
    }
    const back = JSON.parse(runPeer(['read', path.join(dir, 'floe'), casesFile(dir, CASES)])) as Record<string, Canonical>;
    for (const c of CASES) expect(back[c.name], c.name).toEqual(python[c.name]);
  }, 120_000);
});
