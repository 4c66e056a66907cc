// Issue 16, "one codec registry": Zarr v3 codec names, Zarr v1 compressor names and the Icechunk
// file compression all resolve through codecs/registry.ts, and every array-facing entry builds
// the kind of codec and the abilities it declares. (Bytes codecs' declarations are held to
// account by test/property/codec-registry.property.test.ts.)
import { afterEach, describe, expect, it, vi } from 'vitest';
import { isFloeError } from '../../../src/errors.ts';
import type { ArrayToArrayCodec, ArrayToBytesCodec } from '../../../src/format/codecs/array-codecs.ts';
import { buildCodecChain } from '../../../src/format/codecs/pipeline.ts';
import {
  ICECHUNK_FILE_COMPRESSIONS,
  allCodecImplementations,
  codecImplementation,
  icechunkFileCompression,
  zarrV1Implementation,
  zarrV3Implementation,
  ZARR_V1_COMPRESSOR_NAMES,
  ZARR_V3_CODEC_NAMES,
  type CodecImplementation,
} from '../../../src/format/codecs/registry.ts';
import type { CodecMetadata } from '../../../src/format/codecs/types.ts';
import { decodeFile, encodeFile } from '../../../src/format/icechunk/framing.ts';
import { decodeHeader, encodeHeader, HEADER_OFFSETS } from '../../../src/format/icechunk/header.ts';
import { parseDataType } from '../../../src/format/zarr/data-types.ts';
import { defaultFillValue } from '../../../src/format/zarr/fill-value.ts';
import { parseNumpyDataType, V1_DIALECT } from '../../../src/format/numpy/dtype.ts';
import { V1_COMPRESSION_NAMES, v1Compressor } from '../../../src/format/zarr-v1/meta.ts';

// Every implementation, the lazily loaded ones included.
const IMPLEMENTATIONS = await allCodecImplementations();

function errorOf(run: () => unknown): { code: string; message: string } | undefined {
  try {
    run();
  } catch (err) {
    return isFloeError(err) ? { code: err.code, message: err.message } : { code: `non-Floe: ${String(err)}`, message: '' };
  }
  return undefined;
}

const LE: CodecMetadata = { name: 'bytes', configuration: { endian: 'little' } };

/** A small chain using each Zarr v3 codec. A new codec needs a row here (the first test says so). */
const V3_EXAMPLES: Record<string, { dataType: string; codecs: CodecMetadata[] }> = {
  transpose: { dataType: 'int32', codecs: [{ name: 'transpose', configuration: { order: [1, 0] } }, LE] },
  'numcodecs.delta': { dataType: 'int32', codecs: [{ name: 'numcodecs.delta', configuration: { dtype: '<i4' } }, LE] },
  bytes: { dataType: 'int32', codecs: [LE] },
  'vlen-utf8': { dataType: 'string', codecs: [{ name: 'vlen-utf8' }] },
  'vlen-bytes': { dataType: 'binary', codecs: [{ name: 'vlen-bytes' }] },
  sharding_indexed: {
    dataType: 'int32',
    codecs: [{ name: 'sharding_indexed', configuration: { chunk_shape: [2, 2], codecs: [LE], index_codecs: [LE, { name: 'crc32c' }] } }],
  },
  gzip: { dataType: 'int32', codecs: [LE, { name: 'gzip', configuration: { level: 1 } }] },
  zstd: { dataType: 'int32', codecs: [LE, { name: 'zstd', configuration: { level: 1 } }] },
  blosc: { dataType: 'int32', codecs: [LE, { name: 'blosc', configuration: { cname: 'lz4' } }] },
  crc32c: { dataType: 'int32', codecs: [LE, { name: 'crc32c' }] },
  'numcodecs.fixedscaleoffset': { dataType: 'float64', codecs: [{ name: 'numcodecs.fixedscaleoffset', configuration: { offset: 1, scale: 10, dtype: '<f8', astype: '<i2' } }, LE] },
  'numcodecs.quantize': { dataType: 'float32', codecs: [{ name: 'numcodecs.quantize', configuration: { digits: 2, dtype: '<f4' } }, LE] },
  'numcodecs.bitround': { dataType: 'float32', codecs: [{ name: 'numcodecs.bitround', configuration: { keepbits: 5 } }, LE] },
  'numcodecs.packbits': { dataType: 'bool', codecs: [{ name: 'numcodecs.packbits' }, { name: 'bytes' }] },
  'numcodecs.astype': { dataType: 'float64', codecs: [{ name: 'numcodecs.astype', configuration: { encode_dtype: '<f4', decode_dtype: '<f8' } }, LE] },
  'numcodecs.categorize': { dataType: 'string', codecs: [{ name: 'numcodecs.categorize', configuration: { labels: ['a', 'b'], dtype: '|O', astype: '|u1' } }, { name: 'bytes' }] },
  'numcodecs.json2': { dataType: 'string', codecs: [{ name: 'numcodecs.json2' }] },
  'numcodecs.msgpack2': { dataType: 'string', codecs: [{ name: 'numcodecs.msgpack2' }] },
  'numcodecs.zlib': { dataType: 'int32', codecs: [LE, { name: 'numcodecs.zlib', configuration: { level: 1 } }] },
  'numcodecs.gzip': { dataType: 'int32', codecs: [LE, { name: 'numcodecs.gzip', configuration: { level: 1 } }] },
  'numcodecs.bz2': { dataType: 'int32', codecs: [LE, { name: 'numcodecs.bz2', configuration: { level: 1 } }] },
  'numcodecs.lzma': { dataType: 'int32', codecs: [LE, { name: 'numcodecs.lzma', configuration: { format: 3, filters: [{ id: 33, preset: 1 }] } }] },
  'numcodecs.zstd': { dataType: 'int32', codecs: [LE, { name: 'numcodecs.zstd', configuration: { level: 1 } }] },
  'numcodecs.blosc': { dataType: 'int32', codecs: [LE, { name: 'numcodecs.blosc', configuration: { cname: 'lz4', clevel: 5, shuffle: 1 } }] },
  'numcodecs.lz4': { dataType: 'int32', codecs: [LE, { name: 'numcodecs.lz4', configuration: { acceleration: 1 } }] },
  'numcodecs.shuffle': { dataType: 'int32', codecs: [LE, { name: 'numcodecs.shuffle', configuration: { elementsize: 4 } }] },
  'numcodecs.crc32': { dataType: 'int32', codecs: [LE, { name: 'numcodecs.crc32' }] },
  'numcodecs.adler32': { dataType: 'int32', codecs: [LE, { name: 'numcodecs.adler32', configuration: { location: 'end' } }] },
  'numcodecs.fletcher32': { dataType: 'int32', codecs: [LE, { name: 'numcodecs.fletcher32' }] },
  'numcodecs.jenkins_lookup3': { dataType: 'int32', codecs: [LE, { name: 'numcodecs.jenkins_lookup3', configuration: { initval: 0, prefix: null } }] },
  'floe.hdf5_lz4': { dataType: 'int32', codecs: [LE, { name: 'floe.hdf5_lz4' }] },
  'floe.lzf': { dataType: 'int32', codecs: [LE, { name: 'floe.lzf' }] },
};

/** compression_opts for each Zarr v1 compressor name. */
const V1_EXAMPLES: Record<string, unknown> = {
  zlib: 1,
  gzip: 1,
  bz2: 1,
  lzma: { format: 3, filters: [{ id: 33, preset: 1 }] },
  blosc: { cname: 'lz4', clevel: 5, shuffle: 1 },
};

const chainFor = (name: string) => {
  const example = V3_EXAMPLES[name]!;
  const dataType = parseDataType(example.dataType);
  return buildCodecChain(example.codecs, { shape: [4, 4], dataType, fillValue: defaultFillValue(dataType) });
};

/** Replaces a method of a registry entry with a spy that still calls it (restored after each test). */
function spyOnEntry(target: object, method: string) {
  // The entries' types are readonly; at run time they are plain objects, which is what lets a
  // test see that a lookup really went through the registry.
  return vi.spyOn(target as Record<string, (...args: never[]) => unknown>, method);
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('the codec registry', () => {
  it('has one entry per name, and an example above for every Zarr v3 and v1 name', () => {
    const names = IMPLEMENTATIONS.map((e) => e.name);
    expect(new Set(names).size).toBe(names.length);
    for (const e of IMPLEMENTATIONS) expect(codecImplementation(e.name)).toBe(e);
    expect(Object.keys(V3_EXAMPLES).sort()).toEqual([...ZARR_V3_CODEC_NAMES].sort());
    expect(Object.keys(V1_EXAMPLES).sort()).toEqual([...ZARR_V1_COMPRESSOR_NAMES].sort());
  });

  it('gives every bytes codec a format that uses it, and array codecs no compressor abilities', () => {
    for (const e of IMPLEMENTATIONS) {
      if (e.kind === 'bytes_to_bytes') {
        expect(e.zarrV3 ?? e.zarrV1 ?? e.icechunk, e.name).toBeDefined();
      } else {
        expect([e.capabilities.levels, e.capabilities.decodeInto, e.capabilities.boundedDecode], e.name).toEqual([undefined, false, false]);
      }
    }
  });
});

describe('Zarr v3 chains resolve every codec through the registry', () => {
  it.each([...ZARR_V3_CODEC_NAMES])('%s', (name) => {
    const entry = zarrV3Implementation(name)!;
    const factory = spyOnEntry(entry, 'zarrV3');
    const chain = chainFor(name);
    expect(factory).toHaveBeenCalled();
    const built: (ArrayToArrayCodec | ArrayToBytesCodec | { kind: string; name: string })[] = [...chain.arrayCodecs, chain.arrayToBytes, ...chain.bytesCodecs];
    const codec = built.find((c) => c.name === name);
    expect(codec?.kind).toBe(entry.kind);
  });

  it('holds array codecs to their declared abilities', () => {
    const arrayEntries = IMPLEMENTATIONS.filter((e): e is Exclude<CodecImplementation, { kind: 'bytes_to_bytes' }> => e.kind !== 'bytes_to_bytes');
    for (const entry of arrayEntries) {
      const chain = chainFor(entry.name);
      const codec = [...chain.arrayCodecs, chain.arrayToBytes].find((c) => c.name === entry.name)!;
      const hasSize = 'computeEncodedSize' in codec && typeof codec.computeEncodedSize === 'function';
      expect(hasSize, `${entry.name} fixedEncodedSize`).toBe(entry.capabilities.fixedEncodedSize);
      expect('decodeIndex' in codec, `${entry.name} partialDecode`).toBe(entry.capabilities.partialDecode);
    }
  });

  it('names the registry\'s codecs when one is unknown', () => {
    const dataType = parseDataType('int32');
    const err = errorOf(() => buildCodecChain([LE, { name: 'lz5' }], { shape: [4], dataType, fillValue: defaultFillValue(dataType) }));
    expect(err?.code).toBe('UNSUPPORTED');
    expect(err?.message).toContain(`Floe implements ${ZARR_V3_CODEC_NAMES.join(', ')}`);
  });
});

describe('Zarr v1 compressors resolve through the registry', () => {
  it('lists the registry\'s names after "none"', () => {
    expect(V1_COMPRESSION_NAMES).toEqual(['none', ...ZARR_V1_COMPRESSOR_NAMES]);
  });

  it.each([...ZARR_V1_COMPRESSOR_NAMES])('%s', (name) => {
    const entry = zarrV1Implementation(name)!;
    const create = spyOnEntry(entry.zarrV1, 'create');
    const dtype = parseNumpyDataType('<i4', 'meta', V1_DIALECT);
    const codec = v1Compressor({ compression: name, compressionOpts: V1_EXAMPLES[name] as never, dtype })!;
    expect(create).toHaveBeenCalledWith(V1_EXAMPLES[name], { itemSize: 4 }, name);
    expect(codec.name).toBe(name);
    const data = new TextEncoder().encode('v1 '.repeat(100));
    expect(Buffer.from(codec.decode(codec.encode(data))).equals(Buffer.from(data))).toBe(true);
  });

  it('v1 "gzip" is the zlib entry (an RFC 1950 stream), not the v3 gzip codec', () => {
    expect(zarrV1Implementation('gzip')).toBe(codecImplementation('zlib'));
    expect(zarrV3Implementation('gzip')).toBe(codecImplementation('gzip'));
  });
});

describe('Icechunk file compression resolves through the registry', () => {
  // A flatbuffers-looking payload: decodeFile checks the 'Ichk' identifier at bytes 4..8.
  const payload = new TextEncoder().encode(`0000Ichk${'payload '.repeat(50)}`);

  it('maps header bytes to the registry\'s names: 0 none, 1 zstd', () => {
    expect([...ICECHUNK_FILE_COMPRESSIONS]).toEqual([[0, 'none'], [1, 'zstd']]);
  });

  it.each([...ICECHUNK_FILE_COMPRESSIONS])('byte %i (%s) round-trips and is written in the header', (byte, name) => {
    const compression = icechunkFileCompression(name)!;
    const entry = codecImplementation(name);
    const spies = entry ? [spyOnEntry(compression, 'compress'), spyOnEntry(compression, 'decompress')] : [];
    const file = encodeFile('snapshot', 2, payload, { compression: name });
    expect(file[HEADER_OFFSETS.compression]).toBe(byte);
    expect(Buffer.from(decodeFile(file, 'snapshot').payload).equals(Buffer.from(payload))).toBe(true);
    for (const spy of spies) expect(spy).toHaveBeenCalledTimes(1);
  });

  it('refuses a byte or a name the registry lacks', () => {
    const file = encodeFile('snapshot', 2, payload, { compression: 'none' });
    file[HEADER_OFFSETS.compression] = 7;
    const err = errorOf(() => decodeHeader(file, 'snapshot'));
    expect(err).toEqual({ code: 'UNSUPPORTED', message: 'Icechunk compression algorithm 7 is not supported (0 = none, 1 = zstd)' });
    expect(errorOf(() => encodeHeader({ implementation: 'x', specVersion: 2, fileType: 'snapshot', compression: 'lz5' }))?.code).toBe('INVALID_ARGUMENT');
  });
});
