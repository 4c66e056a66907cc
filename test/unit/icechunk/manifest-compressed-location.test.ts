// Manifests whose virtual refs carry `compressed_location` instead of `location`, built here
// field by field with the flatbuffers Builder (Floe's encoder never writes them). The dictionary
// fixture is a real trained zstd dictionary, made with:
//   for i in $(seq 1 400); do printf 's3://earthmover-sample-data/netcdf/oisst/avhrr-only-v2.%d%02d%02d.nc' \
//     $((1981 + i % 40)) $((1 + i % 12)) $((1 + i % 28)) > s$i; done
//   zstd --train s* -o locations.zdict --maxdict=1024
import { Builder, type Offset } from 'flatbuffers';
import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { isFloeError, type ErrorCode } from '../../../src/errors.ts';
import { encodeFile } from '../../../src/format/icechunk/framing.ts';
import { asChunkId } from '../../../src/format/icechunk/ids.ts';
import { decodeManifest, findChunkRef, type ChunkRef } from '../../../src/format/icechunk/manifest.ts';
import { encodeManifest } from '../../../src/format/icechunk/manifest-encode.ts';
import { zstdBackend } from '../../../src/format/codecs/zstd-backend.ts';
import { describeEachZstdBackend, withoutContentSize } from '../../support/zstd.ts';

const DICTIONARY = new Uint8Array(readFileSync(new URL('./fixtures/locations.zdict', import.meta.url)));
const MANIFEST_ID = Uint8Array.from({ length: 12 }, (_, i) => i + 1);
const NODE_ID = Uint8Array.from({ length: 8 }, (_, i) => 0xa0 + i);
const CHUNK_ID = Uint8Array.from({ length: 12 }, (_, i) => 0x30 + i);
const utf8 = (s: string) => new TextEncoder().encode(s);

const LOCATIONS = [
  's3://earthmover-sample-data/netcdf/oisst/avhrr-only-v2.19810101.nc',
  's3://earthmover-sample-data/netcdf/oisst/avhrr-only-v2.20201231.nc',
  'gs://some-other-bucket/data/file-with-ünïcødé-名前.nc',
];

/**
 * Compresses with the dictionary, one frame per location as the reference does, on the backend
 * the test block selected; every other location's frame leaves out the content size.
 */
function compressWith(dictionary: Uint8Array, text: string, unsized = false): Uint8Array {
  const frame = zstdBackend().compress(utf8(text), 3, false, dictionary);
  return unsized ? withoutContentSize(frame, utf8(text).length) : frame;
}

interface RawRef {
  index: number[];
  /** A virtual ref by compressed location (with an optional checksum), or a native or plain virtual ref. */
  compressed?: Uint8Array;
  location?: string;
  chunkId?: Uint8Array;
  etag?: string;
  lastModified?: number;
  offset: number;
  length: number;
}

function addStruct(b: Builder, slot: number, bytes: Uint8Array): void {
  b.prep(1, bytes.length);
  for (let i = bytes.length - 1; i >= 0; i--) b.writeInt8(bytes[i]!);
  b.addFieldStruct(slot, b.offset(), 0);
}

function offsets(b: Builder, items: Offset[]): Offset {
  b.startVector(4, items.length, 4);
  for (let i = items.length - 1; i >= 0; i--) b.addOffset(items[i]!);
  return b.endVector();
}

function writeRef(b: Builder, ref: RawRef): Offset {
  b.startVector(4, ref.index.length, 4);
  for (let i = ref.index.length - 1; i >= 0; i--) b.addInt32(ref.index[i]!);
  const index = b.endVector();
  const compressed = ref.compressed ? b.createByteVector(ref.compressed) : 0;
  const location = ref.location !== undefined ? b.createString(ref.location) : 0;
  const etag = ref.etag !== undefined ? b.createString(ref.etag) : 0;
  b.startObject(10);
  b.addFieldInt64(3, BigInt(ref.length), 0n);
  b.addFieldInt64(2, BigInt(ref.offset), 0n);
  if (compressed) b.addFieldOffset(8, compressed, 0);
  if (ref.lastModified !== undefined) b.addFieldInt32(7, ref.lastModified, 0);
  if (etag) b.addFieldOffset(6, etag, 0);
  if (location) b.addFieldOffset(5, location, 0);
  if (ref.chunkId) addStruct(b, 4, ref.chunkId);
  b.addFieldOffset(0, index, 0);
  return b.endObject();
}

/** A spec-2 manifest file; `algorithm: undefined` leaves the field out (schema default 1). */
function manifestFile(refs: RawRef[], dictionary: Uint8Array | undefined, algorithm: number | undefined): Uint8Array {
  const b = new Builder(1024);
  const refsVec = offsets(b, refs.map((r) => writeRef(b, r)));
  b.startObject(3);
  b.addFieldOffset(1, refsVec, 0);
  addStruct(b, 0, NODE_ID);
  const arrays = offsets(b, [b.endObject()]);
  const dict = dictionary ? b.createByteVector(dictionary) : 0;
  b.startObject(5);
  if (dict) b.addFieldOffset(2, dict, 0);
  b.addFieldOffset(1, arrays, 0);
  addStruct(b, 0, MANIFEST_ID);
  if (algorithm !== undefined) b.addFieldInt8(3, algorithm, 1 - algorithm); // default != value: always written
  b.finish(b.endObject(), 'Ichk');
  return encodeFile('manifest', 2, b.asUint8Array());
}

function dictionaryRefs(dictionary: Uint8Array): RawRef[] {
  return [
    { index: [0, 0], compressed: compressWith(dictionary, LOCATIONS[0]!), etag: '"abc-1"', offset: 100, length: 2000 },
    { index: [0, 1], compressed: compressWith(dictionary, LOCATIONS[1]!, true), lastModified: 1_700_000_000, offset: 0, length: 7 },
    { index: [1, 0], compressed: compressWith(dictionary, LOCATIONS[2]!), offset: 2 ** 40, length: 1 },
    { index: [1, 1], location: 's3://plain/location.nc', offset: 5, length: 6 },
    { index: [2, 0], chunkId: CHUNK_ID, offset: 0, length: 42 },
  ];
}

const EXPECTED: ChunkRef[] = [
  { kind: 'virtual', index: [0, 0], location: LOCATIONS[0]!, offset: 100, length: 2000, checksum: { etag: '"abc-1"' } },
  { kind: 'virtual', index: [0, 1], location: LOCATIONS[1]!, offset: 0, length: 7, checksum: { lastModified: 1_700_000_000 } },
  { kind: 'virtual', index: [1, 0], location: LOCATIONS[2]!, offset: 2 ** 40, length: 1, checksum: null },
  { kind: 'virtual', index: [1, 1], location: 's3://plain/location.nc', offset: 5, length: 6, checksum: null },
  { kind: 'native', index: [2, 0], chunkId: asChunkId(CHUNK_ID), offset: 0, length: 42 },
];

function decodeError(bytes: Uint8Array): { code: ErrorCode; message: string } {
  try {
    decodeManifest(bytes, 'manifests/TEST');
  } catch (err) {
    if (isFloeError(err)) return { code: err.code, message: err.message };
    throw err;
  }
  throw new Error('the manifest decoded');
}

describeEachZstdBackend('manifest compressed_location', () => {
  it('the fixture is a formatted (trained) zstd dictionary, and locations really compress with it', () => {
    expect(new DataView(DICTIONARY.buffer, DICTIONARY.byteOffset).getUint32(0, true)).toBe(0xec30a437);
    expect(compressWith(DICTIONARY, LOCATIONS[0]!).length).toBeLessThan(LOCATIONS[0]!.length / 2);
  });

  it.each([
    ['explicit compression_algorithm 1', 1],
    ['compression_algorithm absent (schema default 1)', undefined],
  ])('decompresses locations with the manifest dictionary: %s', (_, algorithm) => {
    const decoded = decodeManifest(manifestFile(dictionaryRefs(DICTIONARY), DICTIONARY, algorithm));
    const array = decoded.arrays[0]!;
    for (const ref of EXPECTED) expect(findChunkRef(array, ref.index)).toEqual(ref);
    expect(array.refs).toEqual(EXPECTED);
    // Re-encoding writes plain locations (algorithm 0, no dictionary) that read back the same.
    expect(decodeManifest(encodeManifest(decoded)).arrays[0]!.refs).toEqual(EXPECTED);
  });

  it('reads algorithm 0 as raw location bytes, without a dictionary', () => {
    const refs = dictionaryRefs(DICTIONARY).map((r) => {
      const i = LOCATIONS.findIndex((_, k) => EXPECTED[k]!.index.join() === r.index.join());
      return r.compressed ? { ...r, compressed: utf8(LOCATIONS[i]!) } : r;
    });
    expect(decodeManifest(manifestFile(refs, undefined, 0)).arrays[0]!.refs).toEqual(EXPECTED);
    // With algorithm 0, dictionary-compressed bytes are taken as they are: not UTF-8 here.
    expect(decodeError(manifestFile(dictionaryRefs(DICTIONARY), DICTIONARY, 0)).code).toBe('CORRUPT_OBJECT');
  });

  it('fails with CORRUPT_OBJECT when the dictionary is missing', () => {
    const error = decodeError(manifestFile(dictionaryRefs(DICTIONARY), undefined, 1));
    expect(error.code).toBe('CORRUPT_OBJECT');
    expect(error.message).toMatch(/location_dictionary/);
  });

  it.each([
    ['entropy tables overwritten', (d: Uint8Array) => d.map((x, i) => (i >= 8 && i < 200 ? 0xff : x))],
    ['truncated', (d: Uint8Array) => d.slice(0, 24)],
    ['another dictionary', (d: Uint8Array) => { const other = d.slice(); other[4]! ^= 0x55; return other; }],
    ['empty', () => new Uint8Array(0)],
  ])('fails with CORRUPT_OBJECT when the dictionary is corrupt: %s', (_, corrupt) => {
    const error = decodeError(manifestFile(dictionaryRefs(DICTIONARY), corrupt(DICTIONARY), 1));
    expect(error.code).toBe('CORRUPT_OBJECT');
  });

  it('fails with CORRUPT_OBJECT on compressed bytes that are not a zstd frame, or not UTF-8', () => {
    const bad = dictionaryRefs(DICTIONARY);
    bad[0] = { ...bad[0]!, compressed: Uint8Array.of(1, 2, 3, 4, 5, 6, 7, 8) };
    expect(decodeError(manifestFile(bad, DICTIONARY, 1)).code).toBe('CORRUPT_OBJECT');
    const notUtf8 = dictionaryRefs(DICTIONARY);
    notUtf8[1] = { ...notUtf8[1]!, compressed: zstdBackend().compress(Uint8Array.of(0xc3, 0x28, 0xff), 3, false, DICTIONARY) };
    expect(decodeError(manifestFile(notUtf8, DICTIONARY, 1)).code).toBe('CORRUPT_OBJECT');
  });

  it('refuses an unknown compression algorithm with UNSUPPORTED', () => {
    expect(decodeError(manifestFile(dictionaryRefs(DICTIONARY), DICTIONARY, 7)).code).toBe('UNSUPPORTED');
  });
});
