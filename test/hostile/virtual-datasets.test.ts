// Hostile input to virtualize: truncated NetCDF-3 files, counts that overflow, data offsets past
// the end, sizes that overflow, a truncated HDF5 superblock (more in hdf5.test.ts), malformed kerchunk references.
// Each is a typed FloeError naming the file (and the variable where there is one), quickly, and
// nothing is written to the session.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { isFloeError, type FloeError } from '../../src/errors.ts';
import { parseKerchunkReferences, renderTemplate } from '../../src/format/kerchunk/references.ts';
import { splitContiguous } from '../../src/format/netcdf3/layout.ts';
import { Repository, Storage } from '../../src/txn/index.ts';
import { virtualize } from '../../src/txn/virtualize.ts';
import { failureOf } from '../support/error-code.ts';
import { encodeHeader, type HeaderModel } from '../support/netcdf3-writer.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'floe-virtual-hostile-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const prefix = pathToFileURL(dir).href + '/';

async function attempt(name: string, bytes: Uint8Array | string): Promise<{ err: FloeError; written: boolean; ms: number }> {
  const file = path.join(dir, name);
  writeFileSync(file, bytes);
  const config = { virtualChunkContainers: { [prefix]: { urlPrefix: prefix, store: { type: 'LocalFileSystem' as const, field0: dir } } } };
  const repo = await Repository.create(Storage.newInMemory(), config, 2, { [prefix]: null });
  const session = await repo.writableSession('main');
  const started = performance.now();
  const err = await virtualize(session, [file]).then(() => undefined, (e: unknown) => e);
  if (!isFloeError(err)) throw new Error(`expected a FloeError, got ${String(err)}`);
  return { err, written: session.hasUncommittedChanges, ms: performance.now() - started };
}

const model = (): HeaderModel => ({
  version: 1, numRecords: 2,
  dimensions: [{ name: 'time', length: 0 }, { name: 'x', length: 4 }],
  attributes: [{ name: 'title', type: 2, value: 'hostile' }],
  variables: [
    { name: 'fixed', dimensionIds: [1], attributes: [], type: 4, vsize: 16, begin: 0 },
    { name: 'rec', dimensionIds: [0, 1], attributes: [], type: 3, vsize: 8, begin: 0 },
  ],
});

/** A valid file of the model: header, then the data the offsets point at. */
function fileOf(m: HeaderModel): Uint8Array {
  const length = encodeHeader(m).length;
  m.variables[0]!.begin = length;
  m.variables[1]!.begin = length + 16;
  const header = encodeHeader(m);
  const out = new Uint8Array(length + 16 + 2 * 8);
  out.set(header);
  return out;
}

describe('virtualize refuses hostile NetCDF-3 files', () => {
  it('a well-formed file built here imports (the baseline the cases below break)', async () => {
    const file = path.join(dir, 'good.nc');
    writeFileSync(file, fileOf(model()));
    const repo = await Repository.create(Storage.newInMemory(), { virtualChunkContainers: { [prefix]: { urlPrefix: prefix, store: { type: 'LocalFileSystem', field0: dir } } } }, 2);
    const result = await virtualize(await repo.writableSession('main'), [file]);
    expect(result.imported.map((i) => [i.variable, i.shape, i.virtualChunks])).toEqual([['fixed', [4], 1], ['rec', [2, 4], 2]]);
  });

  it('refuses, before writing anything, two files for one group and an array on an existing node', async () => {
    const file = path.join(dir, 'twice.nc');
    writeFileSync(file, fileOf(model()));
    const other = path.join(dir, 'sub');
    mkdirSync(other, { recursive: true });
    writeFileSync(path.join(other, 'twice.nc'), fileOf(model()));
    const repo = await Repository.create(Storage.newInMemory(), { virtualChunkContainers: { [prefix]: { urlPrefix: prefix, store: { type: 'LocalFileSystem', field0: dir } } } }, 2);
    const session = await repo.writableSession('main');
    const clash = await virtualize(session, [file, path.join(other, 'twice.nc')]).catch((e: unknown) => e);
    expect(isFloeError(clash, 'INVALID_ARGUMENT') && clash.message).toContain('/twice');
    await virtualize(session, [file]);
    await session.commit('once');
    const again = await repo.writableSession('main');
    const exists = await virtualize(again, [file]).catch((e: unknown) => e);
    expect(isFloeError(exists, 'ALREADY_EXISTS') && exists.message).toContain('/fixed already exists');
    expect(again.hasUncommittedChanges).toBe(false);
    expect((await virtualize(again, [file], { overwrite: true })).imported).toHaveLength(2);
  });

  it('a streaming file (record count -1) takes its record count from its size', async () => {
    const m = model();
    const bytes = fileOf(m); // 2 records of 8 bytes
    m.numRecords = null;
    const grown = new Uint8Array(bytes.length + 8 + 3); // a third record, and a partial fourth
    grown.set(encodeHeader(m));
    const file = path.join(dir, 'streaming.nc');
    writeFileSync(file, grown);
    const repo = await Repository.create(Storage.newInMemory(), { virtualChunkContainers: { [prefix]: { urlPrefix: prefix, store: { type: 'LocalFileSystem', field0: dir } } } }, 2);
    const result = await virtualize(await repo.writableSession('main'), [file]);
    expect(result.imported.find((i) => i.variable === 'rec')).toMatchObject({ shape: [3, 4], virtualChunks: 3 });
  });

  it('a variable with more chunks than one import holds is skipped with the reason, quickly', async () => {
    const m: HeaderModel = { version: 1, numRecords: 10_000_001, dimensions: [{ name: 'time', length: 0 }], attributes: [],
      variables: [{ name: 'tick', dimensionIds: [0], attributes: [], type: 1, vsize: 4, begin: 0 }] };
    m.variables[0]!.begin = encodeHeader(m).length;
    const header = encodeHeader(m);
    const file = path.join(dir, 'ticks.nc');
    const bytes = new Uint8Array(header.length + 10_000_001);
    bytes.set(header);
    writeFileSync(file, bytes);
    const repo = await Repository.create(Storage.newInMemory(), { virtualChunkContainers: { [prefix]: { urlPrefix: prefix, store: { type: 'LocalFileSystem', field0: dir } } } }, 2);
    const started = performance.now();
    const result = await virtualize(await repo.writableSession('main'), [file]);
    expect(result.skipped).toEqual([expect.objectContaining({ variable: 'tick', reason: expect.stringContaining('10000001 chunks, more than the 10000000') })]);
    expect(performance.now() - started).toBeLessThan(5000);
  });

  it('a truncated file is CORRUPT_OBJECT naming the file', async () => {
    const bytes = fileOf(model());
    const { err, written } = await attempt('truncated.nc', bytes.subarray(0, 60));
    expect(err.code).toBe('CORRUPT_OBJECT');
    expect(err.message).toMatch(/truncated\.nc.*truncated/);
    expect(isFloeError(err, 'CORRUPT_OBJECT') && err.details.file).toContain('truncated.nc');
    expect(written).toBe(false);
  });

  it('counts that the file cannot hold are refused before anything is allocated', async () => {
    const bytes = fileOf(model());
    new DataView(bytes.buffer).setUint32(12, 0x7fffffff); // the dimension count
    const { err, ms } = await attempt('count.nc', bytes);
    expect(err.code).toBe('CORRUPT_OBJECT');
    expect(err.message).toContain('declares 2147483647 dimensions');
    expect(ms).toBeLessThan(2000);
    const wide = fileOf({ ...model(), version: 5 });
    new DataView(wide.buffer).setBigUint64(16, 2n ** 60n); // CDF-5: the dimension count, 8 bytes
    expect((await attempt('count5.nc', wide)).err.message).toContain('beyond what the file can hold');
  });

  it('a data offset past the end of the file names the variable', async () => {
    const m = model();
    const bytes = fileOf(m);
    m.variables[1]!.begin = 1_000_000;
    bytes.set(encodeHeader(m));
    const { err } = await attempt('offset.nc', bytes);
    expect(err.code).toBe('CORRUPT_OBJECT');
    expect(isFloeError(err, 'CORRUPT_OBJECT') && err.details.variable).toBe('rec');
    expect(err.message).toContain('run past the end of the file');
  });

  it('a variable whose size overflows names the variable', async () => {
    const m: HeaderModel = { version: 5, numRecords: 0, dimensions: [{ name: 'a', length: 2 ** 31 }, { name: 'b', length: 2 ** 31 }], attributes: [],
      variables: [{ name: 'huge', dimensionIds: [0, 1, 0], attributes: [], type: 6, vsize: 8, begin: 0 }] };
    m.variables[0]!.begin = encodeHeader(m).length;
    const { err } = await attempt('overflow.nc', encodeHeader(m));
    expect(isFloeError(err, 'CORRUPT_OBJECT') && err.details.variable).toBe('huge');
    expect(err.message).toContain('overflows');
  });

  it('a dimension id that does not exist, and a record dimension not first, are refused', async () => {
    const m = model();
    m.variables[0]!.dimensionIds = [7];
    const dimid = (await attempt('dimid.nc', fileOf(m))).err;
    expect(dimid.message).toContain('dimension id 7');
    expect(isFloeError(dimid, 'CORRUPT_OBJECT') && dimid.details.variable).toBe('fixed');
    const n = model();
    n.variables[1]!.dimensionIds = [1, 0];
    expect((await attempt('recdim.nc', fileOf(n))).err.message).toContain('record dimension is not its first');
  });

  it('a file with the HDF5 signature goes to the HDF5 scanner (here: a truncated superblock), and other bytes are not NetCDF', async () => {
    const { err } = await attempt('nc4.nc', new Uint8Array([0x89, 0x48, 0x44, 0x46, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0]));
    expect(err.code).toBe('CORRUPT_OBJECT');
    expect(err.message).toContain('HDF5 file');
    expect(err.message).toContain('the superblock');
    expect((await attempt('text.nc', new Uint8Array([1, 2, 3, 4, 5]))).err.code).toBe('CORRUPT_OBJECT');
    expect((await attempt('version.nc', new Uint8Array([0x43, 0x44, 0x46, 3, 0, 0, 0, 0]))).err.code).toBe('UNSUPPORTED');
  });
});

describe('kerchunk references', () => {
  const parse = (doc: unknown) => parseKerchunkReferences(JSON.stringify(doc), 'refs.json');

  it('expand templates and gen with integer arithmetic', () => {
    const refs = parse({
      version: 1, templates: { u: 'file:///data/a.nc' },
      gen: [{ key: 'v/{{i}}.{{j}}', url: '{{u}}', offset: '{{ 100 + (i * 2 + j) * 8 }}', length: '8', dimensions: { i: { stop: 2 }, j: [0, 1] } }],
      refs: { 'v/.zarray': '{"zarr_format": 2}', 'w/0': ['{{u}}'], 'x/0': 'base64:AAE=', 'y/0': 'hi' },
    });
    expect([...refs.chunks.entries()]).toEqual([
      ['w/0', { kind: 'whole', url: 'file:///data/a.nc' }],
      ['x/0', { kind: 'inline', bytes: new Uint8Array([0, 1]) }],
      ['y/0', { kind: 'inline', bytes: new TextEncoder().encode('hi') }],
      ['v/0.0', { kind: 'range', url: 'file:///data/a.nc', offset: 100, length: 8 }],
      ['v/0.1', { kind: 'range', url: 'file:///data/a.nc', offset: 108, length: 8 }],
      ['v/1.0', { kind: 'range', url: 'file:///data/a.nc', offset: 116, length: 8 }],
      ['v/1.1', { kind: 'range', url: 'file:///data/a.nc', offset: 124, length: 8 }],
    ]);
    expect(refs.metadata.get('v/.zarray')).toEqual({ zarr_format: 2 });
    const fail = (why: string): never => {
      throw new Error(why);
    };
    expect(renderTemplate('{{ -7 // 2 }}:{{ -7 % 3 }}:{{ (i+1)*3 }}', {}, { i: 4 }, fail)).toBe('-4:2:15');
  });

  it('read version 0 (the refs object alone)', () => {
    const refs = parse({ '.zgroup': '{"zarr_format": 2}', 'a/0': ['/data/x.nc', 4, 8] });
    expect(refs.metadata.get('.zgroup')).toEqual({ zarr_format: 2 });
    expect(refs.chunks.get('a/0')).toEqual({ kind: 'range', url: '/data/x.nc', offset: 4, length: 8 });
  });

  it('refuse what they cannot read, naming the file', () => {
    expect(failureOf(() => parse({ version: 2, refs: {} }))).toMatchObject({ code: 'UNSUPPORTED' });
    expect(failureOf(() => parse({ version: 1, refs: { 'a/0': ['u', -1, 2] } })).message).toContain('non-negative');
    expect(failureOf(() => parse({ version: 1, refs: { 'a/0': [1, 2] } })).message).toContain('[url, offset, length]');
    expect(failureOf(() => parse({ version: 1, refs: { 'a/0': 'base64:@@' } })).message).toContain('base64');
    expect(failureOf(() => parse({ version: 1, refs: {}, gen: [{ key: 'k{{i}}', url: 'u', offset: '{{ import(os) }}', length: '1', dimensions: { i: [0] } }] })).message).toContain('refs.json');
    expect(failureOf(() => parse({ version: 1, refs: {}, gen: [{ key: 'k{{i}}', url: 'u', dimensions: { i: { stop: 1e12 } } }] })).message).toContain('more than');
    expect(failureOf(() => parseKerchunkReferences('{"version": 1, "refs": ', 'refs.json')).code).toBe('INVALID_METADATA');
  });
});

describe('contiguous splitting', () => {
  it('uses a divisor when one is near, else the largest fitting chunk; chunks are contiguous ranges', () => {
    expect(splitContiguous([10, 6], 4, 1000).chunkShape).toEqual([10, 6]);
    const even = splitContiguous([10, 6], 4, 100);
    expect(even.chunkShape).toEqual([2, 6]); // 4 rows fit; 4 and 3 do not divide 10, 2 does (at least half of 4)
    expect([...even.chunks()].map((c) => c.offset)).toEqual([0, 48, 96, 144, 192]);
    const deep = splitContiguous([3, 7, 5], 8, 100);
    expect(deep.chunkShape).toEqual([1, 1, 5]); // 2 rows of 40 bytes fit, 7 is odd: 1
    expect([...deep.chunks()].slice(6, 9).map((c) => [c.index, c.offset])).toEqual([[[0, 6, 0], 240], [[1, 0, 0], 280], [[1, 1, 0], 320]]);
    const partial = splitContiguous([7], 4, 12); // 3 fit; neither 3 nor 2 divides 7: the last chunk is partial
    expect([partial.chunkShape, partial.count, [...partial.chunks()].map((c) => c.offset)]).toEqual([[3], 3, [0, 12, 24]]);
  });
});
