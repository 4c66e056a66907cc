// Issue 17 stage 2 limits on Zarr v2: .zarray/.zgroup/.zattrs/.zmetadata and v3 consolidated
// metadata are read and written through format/json.ts (size and depth limits, Python's bare NaN
// where v2 has it), v2 shapes meet the same maxima as v3 and v1, and a v2 chunk decoded outside the
// v3 chain (zlib) is held to the chunk's size like any other decode.
import { deflateSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { createArray, createGroup, openArray, openGroup } from '../../src/engine/api.ts';
import { consolidate } from '../../src/engine/consolidated.ts';
import { MemoryStorage } from '../../src/engine/storage/memory.ts';
import { StorageStore } from '../../src/engine/store.ts';
import { isFloeError } from '../../src/errors.ts';
import { configureLimits, DEFAULT_LIMITS, MAX_RANK } from '../../src/format/limits.ts';
import { encodeV2Attributes, parseV2ArrayMetadata } from '../../src/format/zarr-v2/metadata.ts';
import { parseZmetadata } from '../../src/format/zarr-v2/consolidated.ts';
import { refusal } from '../support/error-code.ts';

const store = () => new StorageStore(new MemoryStorage());
const bytes = (text: string) => new TextEncoder().encode(text);
const nestedText = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);

const zarray = (shape: readonly number[], chunks: readonly number[], extra: Record<string, unknown> = {}) =>
  JSON.stringify({ zarr_format: 2, shape, chunks, dtype: '|u1', compressor: null, fill_value: 0, filters: null, order: 'C', ...extra });

afterEach(() => {
  configureLimits(DEFAULT_LIMITS);
});

describe('Zarr v2 metadata limits', () => {
  it(`refuses more than ${MAX_RANK} dimensions and more than 2^53 - 1 elements, naming .zarray`, async () => {
    const ones = (n: number) => Array<number>(n).fill(1);
    expect(parseV2ArrayMetadata(zarray(ones(MAX_RANK), ones(MAX_RANK))).shape).toHaveLength(MAX_RANK);
    const rank = await refusal(() => parseV2ArrayMetadata(zarray(ones(MAX_RANK + 1), ones(MAX_RANK + 1)), 'a/.zarray'));
    expect([rank.code, rank.details, rank.where]).toEqual(['LIMIT_EXCEEDED', { kind: 'rank', limit: MAX_RANK, actual: MAX_RANK + 1 }, 'a/.zarray']);
    const elements = await refusal(() => parseV2ArrayMetadata(zarray([2 ** 40, 2 ** 40], [1, 1])));
    expect(elements.details).toMatchObject({ kind: 'elements' });
    const created = await refusal(() => createArray(store(), '/a', { zarrFormat: 2, shape: ones(40), chunks: ones(40), dtype: '|u1' }));
    expect(created.details).toMatchObject({ kind: 'rank', actual: 40 });
  });

  it('refuses a v2 resize past the element maximum before writing anything', async () => {
    const s = store();
    const a = await createArray(s, '/a', { zarrFormat: 2, shape: [4], chunks: [2], dtype: '|u1' });
    const before = await s.get('a/.zarray');
    expect((await refusal(() => a.resize([2 ** 54]))).details).toMatchObject({ kind: 'elements' });
    expect(await s.get('a/.zarray')).toEqual(before);
  });

  it('reads Python NaN in .zarray but refuses .zarray, .zattrs and .zmetadata nested past the depth limit', async () => {
    expect(parseV2ArrayMetadata(zarray([2], [2], { dtype: '<f8' }).replace('"fill_value":0', '"fill_value":NaN')).fill.value.json).toBe('NaN');
    const s = store();
    await createArray(s, '/a', { zarrFormat: 2, shape: [2], chunks: [2], dtype: '|u1' });
    await s.set('a/.zattrs', bytes(`{"deep": ${nestedText(3000)}}`));
    const attrs = await refusal(() => openArray(s, '/a'));
    expect([attrs.code, attrs.details, attrs.where]).toEqual(['LIMIT_EXCEEDED', { kind: 'json-depth', limit: 512 }, 'a/.zattrs']);
    const deepArray = await refusal(() => parseV2ArrayMetadata(zarray([2], [2], { extra: JSON.parse(nestedText(600)) as unknown }), 'b/.zarray'));
    expect(deepArray.details).toMatchObject({ kind: 'json-depth' });
    const zmeta = await refusal(() => parseZmetadata(bytes(`{"metadata": {".zattrs": ${nestedText(3000)}}, "zarr_consolidated_format": 1}`)));
    expect(zmeta.details).toMatchObject({ kind: 'json-depth' });
  });

  it('holds .zmetadata and v3 consolidated metadata to the size limit when opening', async () => {
    const v2 = store();
    await createGroup(v2, '/', { zarrFormat: 2 });
    await createGroup(v2, '/g', { zarrFormat: 2, attributes: { note: 'x'.repeat(4000) } });
    await consolidate(v2, '/');
    const v3 = store();
    await createGroup(v3, '/g', { attributes: { note: 'x'.repeat(4000) } });
    await createGroup(v3, '/', {});
    await consolidate(v3, '/');
    configureLimits({ jsonBytes: 3000 });
    for (const [s, key] of [[v2, '.zmetadata'], [v3, 'zarr.json']] as const) {
      const err = await refusal(() => openGroup(s, '/'));
      expect([err.code, err.details, err.where]).toMatchObject(['LIMIT_EXCEEDED', { kind: 'json-bytes', limit: 3000 }, key]);
    }
  });

  it('refuses to write .zattrs it would refuse to read, naming the key', async () => {
    let value: unknown = 1;
    for (let i = 0; i < 600; i++) value = [value];
    const direct = await refusal(() => encodeV2Attributes({ v: value } as never));
    expect(direct.details).toMatchObject({ kind: 'json-depth', limit: 512 });
    const s = store();
    const a = await createArray(s, '/a', { zarrFormat: 2, shape: [1], chunks: [1], dtype: '|u1' });
    const err = await refusal(() => a.setAttributes({ v: value } as never));
    expect([err.details, err.where]).toMatchObject([{ kind: 'json-depth' }, 'a/.zattrs']);
    expect(await s.get('a/.zattrs')).toBeUndefined();
  });
});

describe('Zarr v2 chunk decoding limits', () => {
  it('holds a zlib chunk (decoded outside the v3 chain) to the chunk size: a bomb is LIMIT_EXCEEDED', async () => {
    const s = store();
    const a = await createArray(s, '/a', { zarrFormat: 2, shape: [32], chunks: [16], dtype: '|u1', compressor: { id: 'zlib', level: 1 } });
    await a.set(undefined, Uint8Array.from({ length: 32 }, (_, i) => i));
    expect(Array.from((await a.get()).data as Uint8Array).slice(14, 18)).toEqual([14, 15, 16, 17]);
    await s.set('a/1', deflateSync(Buffer.alloc(64 * 2 ** 20)));
    const err = await refusal(() => a.get());
    expect([err.code, err.details, err.where]).toMatchObject(['LIMIT_EXCEEDED', { kind: 'decoded-bytes', limit: 16 }, 'a/1']);
  });
});
