// The numcodecs codecs against numcodecs itself (Debian's numcodecs 0.11, run at test time by
// test/support/numcodecs-peer.py). For every case numcodecs makes the input, encodes it and
// decodes its own stream; Floe, through the Zarr v2 mapping (a `.zarray` naming the codec) and
// through the zarr-python 3 `numcodecs.<id>` names, must decode numcodecs' stream to what
// numcodecs decodes, and encode the input to numcodecs' exact bytes where the codec is
// deterministic and its library's output is reproducible (IDENTICAL); the other streams must
// decode in numcodecs to what numcodecs' own decode to. Expected values come from numcodecs only.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { buildCodecChain, type CodecChain } from '../../src/format/codecs/pipeline.ts';
import { allCodecImplementations, createZarrV3BytesCodec } from '../../src/format/codecs/registry.ts';
import type { CodecMetadata } from '../../src/format/codecs/types.ts';
import { bytesCodecFor } from '../../src/format/numpy/chunk-codec.ts';
import { parseNumpyDataType, V2_DIALECT } from '../../src/format/numpy/dtype.ts';
import { parseV2ArrayMetadata, v2ArrayView } from '../../src/format/zarr-v2/metadata.ts';
import { defaultFillValue } from '../../src/format/zarr/fill-value.ts';
import { cStrides, type NdArray } from '../../src/format/zarr/ndarray.ts';
import { codeOf } from '../support/error-code.ts';
import { describeWithNumcodecs, jsonFile, runNumcodecs, type CodecCase, type PeerResult } from '../support/python-numcodecs.ts';
import type { Canonical } from '../support/python-zarr.ts';

// These cases build codecs through the registry's synchronous lookups: load the lazy ones first.
await allCodecImplementations();

const c = (name: string, config: CodecCase['config'], dtype: string, data: CodecCase['data'], shape: readonly number[] = [257]): CodecCase => ({ name, config, dtype, shape, data });

const FILTERS: readonly CodecCase[] = [
  c('delta-i4', { id: 'delta', dtype: '<i4' }, '<i4', 'walk'),
  c('delta-i2-as-i1', { id: 'delta', dtype: '<i2', astype: '|i1' }, '<i2', 'ramp'),
  c('delta-big-endian', { id: 'delta', dtype: '>i4', astype: '>i4' }, '>i4', 'walk'),
  c('delta-u8', { id: 'delta', dtype: '<u8' }, '<u8', 'noise'),
  c('delta-f4', { id: 'delta', dtype: '<f4' }, '<f4', 'floats'),
  c('delta-f8-special', { id: 'delta', dtype: '<f8' }, '<f8', 'special'),
  c('delta-f2', { id: 'delta', dtype: '<f2' }, '<f2', 'floats'),
  c('delta-i8-as-i4', { id: 'delta', dtype: '<i8', astype: '<i4' }, '<i8', 'walk'),
  c('fso-f8-u2', { id: 'fixedscaleoffset', offset: 1000, scale: 10, dtype: '<f8', astype: '<u2' }, '<f8', 'floats'),
  c('fso-f4-i4', { id: 'fixedscaleoffset', offset: 1000.5, scale: 100, dtype: '<f4', astype: '<i4' }, '<f4', 'floats'),
  c('fso-f8-special-i2', { id: 'fixedscaleoffset', offset: 0, scale: 0.25, dtype: '<f8', astype: '<i2' }, '<f8', 'special'),
  c('fso-f8-as-f4', { id: 'fixedscaleoffset', offset: 1.5, scale: 3, dtype: '<f8', astype: '<f4' }, '<f8', 'floats'),
  c('fso-i4-ints', { id: 'fixedscaleoffset', offset: 5, scale: 2, dtype: '<i4', astype: '<i4' }, '<i4', 'walk'),
  c('fso-i4-float-scale', { id: 'fixedscaleoffset', offset: 5, scale: 0.5, dtype: '<i4', astype: '<i2' }, '<i4', 'walk'),
  c('fso-f2-u1', { id: 'fixedscaleoffset', offset: 1000, scale: 2, dtype: '<f2', astype: '|u1' }, '<f2', 'floats'),
  c('quantize-f4-1', { id: 'quantize', digits: 1, dtype: '<f4' }, '<f4', 'floats'),
  c('quantize-f8-3', { id: 'quantize', digits: 3, dtype: '<f8' }, '<f8', 'special'),
  c('quantize-f8-6-as-f4', { id: 'quantize', digits: 6, dtype: '<f8', astype: '<f4' }, '<f8', 'floats'),
  c('quantize-f4-0', { id: 'quantize', digits: 0, dtype: '<f4' }, '<f4', 'floats'),
  c('quantize-f2-2', { id: 'quantize', digits: 2, dtype: '<f2' }, '<f2', 'floats'),
  c('bitround-f4-0', { id: 'bitround', keepbits: 0 }, '<f4', 'special'),
  c('bitround-f4-7', { id: 'bitround', keepbits: 7 }, '<f4', 'special'),
  c('bitround-f4-23', { id: 'bitround', keepbits: 23 }, '<f4', 'floats'),
  c('bitround-f8-20', { id: 'bitround', keepbits: 20 }, '<f8', 'special'),
  c('bitround-f8-bits', { id: 'bitround', keepbits: 3 }, '<f8', 'bytes'),
  c('bitround-f2-4', { id: 'bitround', keepbits: 4 }, '<f2', 'floats'),
  c('packbits-13', { id: 'packbits' }, '|b1', 'ramp', [13]),
  c('packbits-64', { id: 'packbits' }, '|b1', 'ramp', [8, 8]),
  c('packbits-1', { id: 'packbits' }, '|b1', 'ramp', [1]),
  c('astype-f8-f4', { id: 'astype', encode_dtype: '<f4', decode_dtype: '<f8' }, '<f8', 'special'),
  c('astype-i8-i2', { id: 'astype', encode_dtype: '<i2', decode_dtype: '<i8' }, '<i8', 'noise'),
  c('astype-f4-i4', { id: 'astype', encode_dtype: '<i4', decode_dtype: '<f4' }, '<f4', 'special'),
  c('astype-f8-u1', { id: 'astype', encode_dtype: '|u1', decode_dtype: '<f8' }, '<f8', 'special'),
  c('astype-f8-u8', { id: 'astype', encode_dtype: '<u8', decode_dtype: '<f8' }, '<f8', 'special'),
  c('astype-u1-f2', { id: 'astype', encode_dtype: '<f2', decode_dtype: '|u1' }, '|u1', 'noise'),
  c('categorize-U2', { id: 'categorize', labels: ['a', 'bb', 'é', 'zz'], dtype: '<U2', astype: '|u1' }, '<U2', 'text'),
  c('categorize-O-u2', { id: 'categorize', labels: ['bbx', 'a', '日本', 'a'], dtype: '|O', astype: '<u2' }, '|O', 'text', [5, 6]),
];

const BYTES_CODECS: readonly CodecCase[] = [
  c('shuffle-4', { id: 'shuffle', elementsize: 4 }, '<i4', 'walk'),
  c('shuffle-8', { id: 'shuffle', elementsize: 8 }, '<f8', 'floats'),
  c('shuffle-2-of-f4', { id: 'shuffle', elementsize: 2 }, '<f4', 'floats'),
  c('shuffle-1', { id: 'shuffle', elementsize: 1 }, '<i2', 'walk'),
  c('crc32', { id: 'crc32' }, '<i4', 'noise'),
  c('adler32', { id: 'adler32' }, '|u1', 'bytes', [70000]),
  c('lz4-1', { id: 'lz4', acceleration: 1 }, '<i4', 'walk', [5000]),
  c('lz4-10', { id: 'lz4', acceleration: 10 }, '<f8', 'floats', [3000]),
  c('lz4-random', { id: 'lz4', acceleration: 1 }, '|u1', 'bytes', [2000]),
  c('zlib-1', { id: 'zlib', level: 1 }, '<i4', 'walk', [5000]),
  c('zlib-9', { id: 'zlib', level: 9 }, '<f8', 'floats', [3000]),
  c('gzip-1', { id: 'gzip', level: 1 }, '<i4', 'walk', [5000]),
  c('gzip-9', { id: 'gzip', level: 9 }, '<i2', 'ramp', [5000]),
  c('bz2-1', { id: 'bz2', level: 1 }, '<i4', 'walk', [5000]),
  c('bz2-9', { id: 'bz2', level: 9 }, '|u1', 'bytes', [3000]),
  c('lzma-xz', { id: 'lzma', format: 1, check: -1, preset: null, filters: null }, '<i4', 'walk', [5000]),
  c('lzma-alone', { id: 'lzma', format: 2, check: -1, preset: 1, filters: null }, '<i4', 'walk', [5000]),
  c('lzma-raw', { id: 'lzma', format: 3, check: -1, preset: null, filters: [{ id: 3, dist: 4 }, { id: 33, preset: 1 }] }, '<i4', 'walk', [5000]),
  c('zstd-1', { id: 'zstd', level: 1 }, '<i4', 'walk', [5000]),
  c('zstd-22', { id: 'zstd', level: 22 }, '<f8', 'floats', [3000]),
  c('blosc-lz4-shuffle', { id: 'blosc', cname: 'lz4', clevel: 5, shuffle: 1, blocksize: 0 }, '<i4', 'walk', [50000]),
  c('blosc-lz4hc-bitshuffle', { id: 'blosc', cname: 'lz4hc', clevel: 9, shuffle: 2, blocksize: 0 }, '<f8', 'floats', [20000]),
  c('blosc-blosclz', { id: 'blosc', cname: 'blosclz', clevel: 9, shuffle: 0, blocksize: 0 }, '<i2', 'ramp', [30000]),
  c('blosc-zstd-auto', { id: 'blosc', cname: 'zstd', clevel: 3, shuffle: -1, blocksize: 4096 }, '|u1', 'bytes', [30000]),
  c('blosc-zlib', { id: 'blosc', cname: 'zlib', clevel: 1, shuffle: 1, blocksize: 0 }, '<f4', 'floats', [30000]),
  c('blosc-snappy', { id: 'blosc', cname: 'snappy', clevel: 5, shuffle: 1, blocksize: 0 }, '<i8', 'walk', [10000]),
  c('blosc-clevel-0', { id: 'blosc', cname: 'lz4', clevel: 0, shuffle: 1, blocksize: 0 }, '<i4', 'walk', [1000]),
  c('blosc-clevel-0-large', { id: 'blosc', cname: 'zstd', clevel: 0, shuffle: 2, blocksize: 0 }, '<f8', 'floats', [50000]),
  c('blosc-clevel-0-blocks', { id: 'blosc', cname: 'blosclz', clevel: 0, shuffle: 0, blocksize: 20000 }, '|u1', 'bytes', [70000]),
];

const OBJECT_CODECS: readonly CodecCase[] = [
  c('json2', { id: 'json2', encoding: 'utf-8', skipkeys: false, ensure_ascii: true, check_circular: true, allow_nan: true, sort_keys: true, indent: null, separators: [',', ':'], strict: true }, '|O', 'text', [3, 7]),
  c('json2-unicode-indent', { id: 'json2', encoding: 'utf-8', ensure_ascii: false, indent: 2 }, '|O', 'text', [2, 2, 3]),
  c('msgpack2', { id: 'msgpack2', raw: false, use_single_float: false, use_bin_type: true }, '|O', 'text', [4, 9]),
  c('msgpack2-long', { id: 'msgpack2' }, '|O', 'text', [300]),
  c('vlen-utf8', { id: 'vlen-utf8' }, '|O', 'text', [6, 5]),
  c('vlen-array-i2', { id: 'vlen-array', dtype: '<i2' }, '|O', 'text', [11]),
  c('vlen-array-f8-big', { id: 'vlen-array', dtype: '>f8' }, '|O', 'text', [2, 3]),
];

const CASES = [...FILTERS, ...BYTES_CODECS, ...OBJECT_CODECS];

/**
 * Whose streams differ from numcodecs' although both are valid: the compressors, whose bytes
 * depend on the library (Node's zlib is not Debian's zlib 1.2.13, Floe's LZ4, blosclz, snappy and
 * bz2 encoders are its own, liblzma and libzstd builds differ). Everything else is written
 * byte for byte as numcodecs writes it.
 */
const LIBRARY_DEPENDENT = new Set(['lz4', 'zlib', 'gzip', 'bz2', 'lzma', 'zstd', 'blosc']);
/** Blosc at clevel 0 stores every buffer memcpyed: no library in it, the same bytes as c-blosc. */
const identical = (k: CodecCase) => !LIBRARY_DEPENDENT.has(k.config.id) || (k.config.id === 'blosc' && k.config.clevel === 0);

interface Coder {
  readonly encode: (array: NdArray) => Uint8Array;
  readonly decode: (bytes: Uint8Array) => NdArray;
}

const BYTES_IDS = new Set([...LIBRARY_DEPENDENT, 'shuffle', 'crc32', 'adler32']);
const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');
const fromHex = (text: string) => new Uint8Array(Buffer.from(text, 'hex'));

/** Floe's v2 read and write path for an array of one chunk holding `k`'s codec. */
function v2Coder(k: CodecCase, renameCore = false): Coder {
  const compressor = BYTES_IDS.has(k.config.id);
  const meta = parseV2ArrayMetadata({
    zarr_format: 2, shape: [...k.shape], chunks: k.shape.length === 0 ? [] : k.shape.map((n) => Math.max(1, n)), dtype: k.dtype,
    compressor: compressor ? k.config : null, filters: compressor ? null : [k.config], fill_value: null, order: 'C',
  });
  const view = v2ArrayView(meta, {});
  const codecs = renameCore ? view.v3.codecs.map((m) => asNumcodecsName(m, k)) : view.v3.codecs;
  const chain = buildCodecChain(codecs, { shape: view.v3.chunkShape, dataType: view.v3.dataType, fillValue: view.v3.fillValue });
  return { encode: (a) => view.chunkCodec.encode(chain.encode(a)), decode: (b) => chain.decode(view.chunkCodec.decode(b)) };
}

/** The v3 chain under zarr-python 3's names: the core gzip/zstd/blosc as numcodecs.<id>. */
function asNumcodecsName(meta: CodecMetadata, k: CodecCase): CodecMetadata {
  if (!['gzip', 'zstd', 'blosc'].includes(meta.name)) return meta;
  const { id, ...configuration } = k.config;
  return { name: `numcodecs.${id}`, configuration };
}

/** The array's elements as raw bytes in the dtype's byte order, and back (the `bytes` codec). */
function rawChain(dtype: string, shape: readonly number[]): CodecChain {
  const numpy = parseNumpyDataType(dtype, 'case', V2_DIALECT);
  return buildCodecChain([bytesCodecFor(numpy)], { shape, dataType: numpy.dataType, fillValue: defaultFillValue(numpy.dataType) });
}

function inputArray(k: CodecCase, input: Canonical): NdArray {
  if ('strings' in input) return { data: input.strings, shape: [...k.shape], stride: cStrides(k.shape) };
  if ('binary' in input) return { data: input.binary.map(fromHex), shape: [...k.shape], stride: cStrides(k.shape) };
  return rawChain(k.dtype, k.shape).decode(fromHex(input.hex));
}

function canonicalOf(k: CodecCase, array: NdArray): Canonical {
  const data = array.data;
  if (Array.isArray(data)) return data.every((v) => typeof v === 'string') ? { strings: data as string[] } : { binary: (data as Uint8Array[]).map(hex) };
  return { hex: hex(rawChain(k.dtype, k.shape).encode(array)) };
}

let dir = '';
let peer: Record<string, PeerResult> = {};

/** numcodecs' result for a case; a missing one fails the test that asks. */
function peerResult(name: string): PeerResult {
  const result = peer[name];
  if (!result) throw new Error(`numcodecs returned nothing for case ${name}`);
  return result;
}

beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'floe-numcodecs-'));
});
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describeWithNumcodecs('Floe reads and writes what numcodecs does', () => {
  beforeAll(() => {
    peer = JSON.parse(runNumcodecs(['encode', jsonFile(dir, 'cases.json', CASES)])) as Record<string, PeerResult>;
  }, 120_000);

  it('numcodecs encoded every case', () => {
    expect(Object.keys(peer).sort()).toEqual(CASES.map((k) => k.name).sort());
  });

  it.each(CASES.map((k) => [k.name, k] as const))('%s: Floe decodes numcodecs\' stream, by v2 id and by v3 name', (name, k) => {
    const result = peerResult(name);
    const stream = fromHex(result.encoded);
    expect(canonicalOf(k, v2Coder(k).decode(stream))).toEqual(result.decoded);
    expect(canonicalOf(k, v2Coder(k, true).decode(stream))).toEqual(result.decoded);
  });

  it.each(CASES.filter(identical).map((k) => [k.name, k] as const))('%s: Floe writes numcodecs\' bytes exactly', (name, k) => {
    const result = peerResult(name);
    const input = inputArray(k, result.input);
    expect(hex(v2Coder(k).encode(input))).toBe(result.encoded);
    expect(hex(v2Coder(k, true).encode(input))).toBe(result.encoded);
  });

  it('numcodecs decodes every stream Floe writes to what it decodes from its own', () => {
    const floe = Object.fromEntries(CASES.map((k) => [k.name, hex(v2Coder(k).encode(inputArray(k, peerResult(k.name).input)))]));
    const decoded = JSON.parse(runNumcodecs(['decode', jsonFile(dir, 'cases.json', CASES), jsonFile(dir, 'floe.json', floe)])) as Record<string, Canonical>;
    for (const k of CASES) expect(decoded[k.name], k.name).toEqual(peerResult(k.name).decoded);
  }, 120_000);

  it.each(BYTES_CODECS.map((k) => [k.name, k] as const))('%s: decoding numcodecs\' stream stops at the expected size', (name, k) => {
    const { id, ...configuration } = k.config;
    const codec = createZarrV3BytesCodec(`numcodecs.${id}`, configuration, { itemSize: parseNumpyDataType(k.dtype, 'case', V2_DIALECT).itemSize });
    const stream = fromHex(peerResult(name).encoded);
    const size = (peerResult(name).input as { hex: string }).hex.length / 2;
    expect(codec.decode(stream, { maxBytes: size }).length).toBe(size);
    expect(codeOf(() => codec.decode(stream, { maxBytes: size - 1 }))).toBe('LIMIT_EXCEEDED');
  });
});
