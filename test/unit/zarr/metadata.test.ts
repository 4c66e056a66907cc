// zarr.json validation: unknown fields, every invalid field named in INVALID_METADATA, and
// UNSUPPORTED for extensions Floe does not implement.
import { describe, expect, it } from 'vitest';
import { ZarrArray } from '../../../src/engine/array.ts';
import { MemoryStorage } from '../../../src/engine/storage/memory.ts';
import { StorageStore } from '../../../src/engine/store.ts';
import { isFloeError, type ErrorCode } from '../../../src/errors.ts';
import { encodeNodeMetadata, parseNodeMetadata, type ArrayMetadata } from '../../../src/format/zarr/metadata.ts';

type Doc = Record<string, unknown>;
const base = (): Doc => ({
  zarr_format: 3, node_type: 'array', shape: [4, 6], data_type: 'int16', fill_value: 0,
  chunk_grid: { name: 'regular', configuration: { chunk_shape: [2, 3] } },
  chunk_key_encoding: { name: 'default', configuration: { separator: '/' } },
  codecs: [{ name: 'bytes', configuration: { endian: 'little' } }], attributes: {},
});

function refusal(doc: Doc | string): { code: ErrorCode; message: string } {
  try {
    parseNodeMetadata(typeof doc === 'string' ? doc : JSON.stringify(doc), 'arr/zarr.json');
  } catch (err) {
    if (isFloeError(err)) return { code: err.code, message: err.message };
    throw err;
  }
  throw new Error('expected the document to be refused');
}

describe('parseNodeMetadata', () => {
  it('reads a valid array and group', () => {
    const meta = parseNodeMetadata(JSON.stringify(base())) as ArrayMetadata;
    expect([meta.shape, meta.chunkShape, meta.dataType.name, meta.chunkKeyEncoding.separator]).toEqual([[4, 6], [2, 3], 'int16', '/']);
    expect(parseNodeMetadata('{"zarr_format": 3, "node_type": "group"}')).toMatchObject({ nodeType: 'group', attributes: {} });
  });

  it.each<[string, (d: Doc) => void, string]>([
    ['zarr_format 2', (d) => (d.zarr_format = 2), 'zarr_format'],
    ['no zarr_format', (d) => delete d.zarr_format, 'zarr_format'],
    ['node_type', (d) => (d.node_type = 'table'), 'node_type'],
    ['shape not a list', (d) => (d.shape = 4), 'shape'],
    ['negative shape', (d) => (d.shape = [4, -1]), 'shape'],
    ['fractional shape', (d) => (d.shape = [4, 1.5]), 'shape'],
    ['data_type', (d) => (d.data_type = 7), 'data_type'],
    ['raw bits', (d) => (d.data_type = 'r12'), 'r12'],
    ['chunk_grid', (d) => (d.chunk_grid = 'regular'), 'chunk_grid'],
    ['chunk_grid configuration', (d) => (d.chunk_grid = { name: 'regular' }), 'chunk_grid.configuration'],
    ['zero chunk size', (d) => (d.chunk_grid = { name: 'regular', configuration: { chunk_shape: [2, 0] } }), 'chunk_shape'],
    ['chunk rank', (d) => (d.chunk_grid = { name: 'regular', configuration: { chunk_shape: [2] } }), 'chunk_shape'],
    ['chunk_key_encoding', (d) => (d.chunk_key_encoding = 'default'), 'chunk_key_encoding'],
    ['separator', (d) => (d.chunk_key_encoding = { name: 'default', configuration: { separator: '-' } }), 'separator'],
    ['no fill_value', (d) => delete d.fill_value, 'fill_value'],
    ['fill_value', (d) => (d.fill_value = 'zero'), 'fill_value'],
    ['codecs', (d) => (d.codecs = { name: 'bytes' }), 'codecs'],
    ['empty codecs', (d) => (d.codecs = []), 'codecs'],
    ['codec without name', (d) => (d.codecs = [{ configuration: {} }]), 'codecs[0]'],
    ['codec configuration', (d) => (d.codecs = [{ name: 'bytes', configuration: 'little' }]), 'codecs[0].configuration'],
    ['attributes', (d) => (d.attributes = []), 'attributes'],
    ['dimension_names length', (d) => (d.dimension_names = ['x']), 'dimension_names'],
    ['dimension_names type', (d) => (d.dimension_names = ['x', 1]), 'dimension_names'],
    ['storage_transformers', (d) => (d.storage_transformers = {}), 'storage_transformers'],
    ['unknown field', (d) => (d.chunk_memory_layout = 'C'), 'chunk_memory_layout'],
    ['unknown object field', (d) => (d.extension = { must_understand: true }), 'extension'],
  ])('refuses %s with INVALID_METADATA naming the field', (_label, mutate, field) => {
    const doc = base();
    mutate(doc);
    const { code, message } = refusal(doc);
    expect(code).toBe('INVALID_METADATA');
    expect(message).toContain(field);
    expect(message).toContain('arr/zarr.json');
  });

  it('refuses malformed JSON, non-objects and invalid UTF-8 with INVALID_METADATA', () => {
    expect(refusal('{"zarr_format": 3,').code).toBe('INVALID_METADATA');
    expect(refusal('[3]').code).toBe('INVALID_METADATA');
    expect(() => parseNodeMetadata(Uint8Array.of(0x7b, 0xff, 0x7d))).toThrow(expect.objectContaining({ code: 'INVALID_METADATA' }));
  });

  it('keeps unknown fields marked must_understand: false and writes them back', () => {
    const doc = { ...base(), my_extension: { must_understand: false, value: [1, 2] } };
    const meta = parseNodeMetadata(JSON.stringify(doc));
    expect(meta.extra).toEqual({ my_extension: { must_understand: false, value: [1, 2] } });
    const back = JSON.parse(new TextDecoder().decode(encodeNodeMetadata(meta))) as Doc;
    expect(back.my_extension).toEqual({ must_understand: false, value: [1, 2] });
  });

  it.each<[string, (d: Doc) => void, string]>([
    ['data type', (d) => (d.data_type = 'float8_e4m3'), 'float8_e4m3'],
    ['chunk grid', (d) => (d.chunk_grid = { name: 'rectilinear', configuration: {} }), 'rectilinear'],
    ['chunk key encoding', (d) => (d.chunk_key_encoding = { name: 'morton' }), 'morton'],
    ['storage transformer', (d) => (d.storage_transformers = [{ name: 'sharding_v0' }]), 'sharding_v0'],
  ])('refuses an unknown %s with UNSUPPORTED naming it', (_label, mutate, name) => {
    const doc = base();
    mutate(doc);
    const { code, message } = refusal(doc);
    expect(code).toBe('UNSUPPORTED');
    expect(message).toContain(name);
  });

  it('refuses an unknown codec with UNSUPPORTED when the array is opened', async () => {
    const store = new StorageStore(new MemoryStorage());
    await store.set('a/zarr.json', new TextEncoder().encode(JSON.stringify({ ...base(), codecs: [{ name: 'bytes', configuration: { endian: 'little' } }, { name: 'lz5' }] })));
    await expect(ZarrArray.open(store, '/a')).rejects.toSatisfy((e: unknown) => isFloeError(e, 'UNSUPPORTED') && (e as Error).message.includes('lz5'));
  });
});
