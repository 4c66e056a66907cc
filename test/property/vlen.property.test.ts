// Variable-length arrays (string, large_string, binary, large_binary and zarr-python's names)
// through every layout Floe writes — the ZEP offsets layout (`bytes`), zarr-python's framed
// vlen-utf8 / vlen-bytes, compressed, and sharded — checked against the plain model in
// test/support/model-array.ts after random writes: unicode, empty elements and fill values
// included. Binary elements live in the model as hex strings.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ZarrArray } from '../../src/engine/array.ts';
import { MemoryStorage } from '../../src/engine/storage/memory.ts';
import { StorageStore } from '../../src/engine/store.ts';
import { toFloeSelection } from '../../src/testing/adapters/floe-array.ts';
import { selectionItemArb } from '../../src/testing/arbitraries/selections.ts';
import type { CodecMetadata } from '../../src/format/codecs/types.ts';
import { ModelArray, resolveSelection, resultShapeOf, type ModelItem } from '../support/model-array.ts';

const DTYPES = ['string', 'large_string', 'binary', 'variable_length_bytes', 'large_binary'] as const;
type Dtype = (typeof DTYPES)[number];
const isText = (d: Dtype) => d.endsWith('string');

function chains(dtype: Dtype, inner: number[]): CodecMetadata[][] {
  const framed: CodecMetadata = { name: isText(dtype) ? 'vlen-utf8' : 'vlen-bytes' };
  const shard = (codecs: CodecMetadata[], where: 'start' | 'end'): CodecMetadata[] => [{
    name: 'sharding_indexed',
    configuration: { chunk_shape: inner, codecs, index_codecs: [{ name: 'bytes', configuration: { endian: 'little' } }, { name: 'crc32c' }], index_location: where },
  }];
  return [
    [{ name: 'bytes' }],
    [framed],
    [{ name: 'bytes' }, { name: 'gzip', configuration: { level: 1 } }],
    [framed, { name: 'zstd', configuration: { level: 1, checksum: false } }],
    shard([{ name: 'bytes' }], 'end'),
    shard([framed, { name: 'gzip', configuration: { level: 1 } }], 'start'),
  ];
}

const text = fc.oneof(fc.constant(''), fc.string({ unit: 'grapheme', maxLength: 6 }), fc.constantFrom('☃', '𝄞x', 'naïve', 'a\u0000b'));
const bytes = fc.uint8Array({ maxLength: 6 }).map((b) => Buffer.from(b).toString('hex'));


const caseArb = fc
  .record({
    dtype: fc.constantFrom(...DTYPES),
    inner: fc.array(fc.integer({ min: 1, max: 3 }), { minLength: 1, maxLength: 3 }),
    perShard: fc.array(fc.integer({ min: 1, max: 2 }), { minLength: 3, maxLength: 3 }),
    extent: fc.array(fc.integer({ min: 0, max: 7 }), { minLength: 3, maxLength: 3 }),
    chain: fc.nat(5),
  })
  .chain((c) => {
    const rank = c.inner.length;
    const shape = c.extent.slice(0, rank);
    const value = isText(c.dtype) ? text : bytes;
    return fc.record({
      c: fc.constant(c),
      shape: fc.constant(shape),
      fill: value,
      writes: fc.array(fc.record({ sel: fc.tuple(...shape.map((n) => selectionItemArb(n, { outOfBounds: false }))), values: fc.array(value, { minLength: 1, maxLength: 400 }) }), { maxLength: 4 }),
      read: fc.tuple(...shape.map((n) => selectionItemArb(n, { outOfBounds: false }))),
    });
  });


const fromHex = (h: string) => new Uint8Array(Buffer.from(h, 'hex'));
const toModel = (data: unknown[]) => data.map((v) => (v instanceof Uint8Array ? Buffer.from(v).toString('hex') : (v as string)));

describe('variable-length arrays against the model', () => {
  it('random writes and reads round-trip in every layout', async () => {
    await fc.assert(
      fc.asyncProperty(caseArb, async ({ c, shape, fill, writes, read }) => {
        const text = isText(c.dtype);
        const chunkShape = c.inner.map((n, d) => n * c.perShard[d]!);
        const codecs = chains(c.dtype, c.inner)[c.chain]!;
        const store = new StorageStore(new MemoryStorage());
        const array = await ZarrArray.create(store, '/v', {
          shape, chunkShape, dataType: c.dtype, codecs,
          fillValue: text ? fill : Buffer.from(fill, 'hex').toString('base64'),
        });
        const model = new ModelArray(shape, 0, [fill]);
        for (const w of writes) {
          const dims = resolveSelection(w.sel, shape);
          const n = dims.reduce((a, d) => a * d.indices.length, 1);
          const values = Array.from({ length: n }, (_, i) => w.values[i % w.values.length]!);
          model.write(dims, values, false);
          await array.set(toFloeSelection(w.sel), text ? values : values.map(fromHex));
        }
        const reopened = await ZarrArray.open(store, '/v');
        const all = await reopened.get();
        expect(toModel(all.data as unknown[])).toEqual(model.read(resolveSelection([], shape)));
        const dims = resolveSelection(read, shape);
        const part = await reopened.get(toFloeSelection(read));
        expect(part.shape).toEqual(resultShapeOf(dims));
        expect(toModel(part.data as unknown[])).toEqual(model.read(dims));
        // Chunks left all-fill are not stored.
        for await (const key of store.list()) {
          if (key.endsWith('zarr.json')) continue;
          expect((await store.get(key))!.length).toBeGreaterThan(0);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('an array never written reads as its fill value everywhere', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...DTYPES), text, async (dtype, fill) => {
        const value = isText(dtype) ? fill : Buffer.from(fill, 'utf8').toString('base64');
        const a = await ZarrArray.create(new StorageStore(new MemoryStorage()), '/f', { shape: [3, 2], chunkShape: [2, 2], dataType: dtype, codecs: [{ name: 'bytes' }], fillValue: value });
        const got = toModel((await a.get()).data as unknown[]);
        expect(got).toEqual(new Array(6).fill(isText(dtype) ? fill : Buffer.from(fill, 'utf8').toString('hex')));
      }),
      { numRuns: 300 },
    );
  });
});
