// The one registry of codec implementations. Zarr v3 chains (pipeline.ts), Zarr v1 compressors
// (zarr-v1/meta.ts) and the Icechunk file compression (icechunk/header.ts, framing.ts) all find
// their implementations here, by name or header byte, with the capabilities each declares.
//
// Adding a codec: write its file, exporting a CodecImplementation entry (codec-implementation.ts)
// beside the codec, and add it to CODECS below: the entry itself when nearly every array uses the
// codec, else a LazyCodec stub (its name, kind, capabilities and the module to load). The list is
// explicit rather than filled by codec modules registering themselves on import: a
// self-registering module works only if something happens to import it first.
//
// Why stubs: the numcodecs codecs, bz2, lzma and blosc (Blosc1 in TypeScript: ten modules, 40 KB)
// are 30-odd modules few arrays use, and every
// module loaded at import stays in the heap (test/unit/architecture/lazy-loading.test.ts). Their
// names and capabilities are here from the start (refusals list them, callers decide on them);
// their code loads with `loadCodecsMentionedIn`, which every async path that opens or creates an
// array awaits before building its chain synchronously. A sync lookup of a stub not yet loaded is
// a bug in that path, and fails loudly (a plain Error: no user data can cause it).
//
// Lookups build codecs; callers resolve once per array or chain, never per chunk.
import { floeError } from '../../errors.ts';
import { limitExceeded } from '../limits.ts';
import { bytesEntry } from './bytes.ts';
import {
  PLAIN_CAPABILITIES,
  type ArrayCodecImplementation,
  type BytesCodecImplementation,
  type CodecCapabilities,
  type CodecImplementation,
  type FileCompression,
  type FileDecompressOptions,
  type LevelRange,
  type V1CompressorFactory,
} from './codec-implementation.ts';
import { crc32cEntry } from './crc32c.ts';
import { gzipEntry } from './gzip.ts';
import { shardingEntry } from './sharding.ts';
import { transposeEntry } from './transpose.ts';
import type { BytesCodecContext, BytesCodecFactory, BytesToBytesCodec } from './types.ts';
import { vlenBytesEntry } from './vlen-bytes.ts';
import { vlenUtf8Entry } from './vlen-utf8.ts';
import { zlibEntry } from './zlib.ts';
import { zstdEntry } from './zstd.ts';

export type * from './codec-implementation.ts';

/** A codec whose implementation loads on first use: what is known of it before then. */
export interface LazyCodec {
  readonly name: string;
  readonly kind: CodecImplementation['kind'];
  readonly capabilities: CodecCapabilities;
  /** Zarr v3 metadata can name it (under `name`). */
  readonly zarrV3: boolean;
  /** The v1 `compression` names it implements. */
  readonly zarrV1Names: readonly string[];
  /** Loads the module that exports the entry (with any others that module exports). */
  readonly load: () => Promise<readonly CodecImplementation[]>;
}

type Descriptor = CodecImplementation | LazyCodec;

const isLazy = (d: Descriptor): d is LazyCodec => 'load' in d;

const BOUNDED: CodecCapabilities = Object.freeze({ ...PLAIN_CAPABILITIES, boundedDecode: true });
const BOUNDED_FIXED: CodecCapabilities = Object.freeze({ ...BOUNDED, fixedEncodedSize: true });
const BOUNDED_INTO: CodecCapabilities = Object.freeze({ ...BOUNDED, decodeInto: true });
const withLevels = (base: CodecCapabilities, levelRange: LevelRange): CodecCapabilities => Object.freeze({ ...base, levels: levelRange });
const levels = (min: number, max: number, dflt: number, outside: 'reject' | 'clamp' = 'reject', key = 'level'): LevelRange => Object.freeze({ key, min, max, default: dflt, outside });

function lazy(name: string, kind: CodecImplementation['kind'], capabilities: CodecCapabilities, load: () => Promise<readonly CodecImplementation[]>): LazyCodec {
  return Object.freeze({ name, kind, capabilities, zarrV3: true, zarrV1Names: [], load });
}

/** A v1-only compressor (bz2, lzma: v3 names them numcodecs.bz2, numcodecs.lzma). */
function lazyV1(name: string, capabilities: CodecCapabilities, load: () => Promise<readonly CodecImplementation[]>): LazyCodec {
  return Object.freeze({ name, kind: 'bytes_to_bytes', capabilities, zarrV3: false, zarrV1Names: [name], load });
}

/** A codec named in both Zarr v3 metadata and Zarr v1 `compression` (blosc). */
function lazyV3V1(name: string, capabilities: CodecCapabilities, load: () => Promise<readonly CodecImplementation[]>): LazyCodec {
  return Object.freeze({ name, kind: 'bytes_to_bytes', capabilities, zarrV3: true, zarrV1Names: [name], load });
}

/** What blosc.ts's entry declares (loadStub checks that they agree). */
const BLOSC_CAPABILITIES: CodecCapabilities = Object.freeze({ ...BOUNDED_INTO, levels: levels(0, 9, 5, 'reject', 'clevel') });

// One loader per module, so that the entries a module exports load together.
const deltaModule = async () => { const m = await import('./numcodecs/delta.ts'); return [m.deltaEntry]; };
// bz2 and Blosc's snappy use CommonJS packages that the browser build fetches as chunks of their
// own; prepare* lets their sync decoders find them there (and does nothing under Node).
const prepareBz2 = async () => (await import('./seek-bzip-host.ts')).prepareSeekBzip();
const prepareSnappy = async () => (await import('./blosc/snappy-host.ts')).prepareSnappy();
const bz2Module = async () => { const m = await import('./bz2.ts'); await prepareBz2(); return [m.bz2Entry]; };
const lzmaModule = async () => { const m = await import('./lzma.ts'); return [m.lzmaEntry]; };
const bloscModule = async () => { const m = await import('./blosc.ts'); await prepareSnappy(); return [m.bloscEntry]; };
const fixedScaleOffsetModule = async () => { const m = await import('./numcodecs/fixedscaleoffset.ts'); return [m.fixedScaleOffsetEntry]; };
const quantizeModule = async () => { const m = await import('./numcodecs/quantize.ts'); return [m.quantizeEntry]; };
const bitRoundModule = async () => { const m = await import('./numcodecs/bitround.ts'); return [m.bitRoundEntry]; };
const packBitsModule = async () => { const m = await import('./numcodecs/packbits.ts'); return [m.packBitsEntry]; };
const asTypeModule = async () => { const m = await import('./numcodecs/astype.ts'); return [m.asTypeEntry]; };
const categorizeModule = async () => { const m = await import('./numcodecs/categorize.ts'); return [m.categorizeEntry]; };
const json2Module = async () => { const m = await import('./numcodecs/json2.ts'); return [m.json2Entry]; };
const msgpack2Module = async () => { const m = await import('./numcodecs/msgpack2.ts'); return [m.msgpack2Entry]; };
const compressorsModule = async () => {
  const m = await import('./numcodecs/compressors.ts');
  await Promise.all([prepareBz2(), prepareSnappy()]);
  return [m.numcodecsZlibEntry, m.numcodecsGzipEntry, m.numcodecsBz2Entry, m.numcodecsLzmaEntry, m.numcodecsZstdEntry, m.numcodecsBloscEntry];
};
const lz4Module = async () => { const m = await import('./numcodecs/lz4.ts'); return [m.lz4Entry]; };
const shuffleModule = async () => { const m = await import('./numcodecs/shuffle.ts'); return [m.shuffleEntry]; };
const checksum32Module = async () => { const m = await import('./numcodecs/checksum32.ts'); return [m.crc32Entry, m.adler32Entry, m.fletcher32Entry]; };
const hdf5Lz4Module = async () => { const m = await import('./hdf5-lz4.ts'); return [m.hdf5Lz4Entry]; };
const lzfModule = async () => { const m = await import('./lzf.ts'); return [m.lzfEntry]; };
const jenkinsModule = async () => { const m = await import('./numcodecs/jenkins-lookup3.ts'); return [m.jenkinsLookup3Entry]; };


/**
 * Every codec Floe implements. Order is the order error messages list names in (tests pin v3's
 * "..., gzip, zstd, blosc, crc32c" and v1's "zlib, gzip, bz2, lzma, blosc").
 */
const CODECS: readonly Descriptor[] = Object.freeze([
  transposeEntry,
  lazy('numcodecs.delta', 'array_to_array', PLAIN_CAPABILITIES, deltaModule),
  bytesEntry,
  vlenUtf8Entry,
  vlenBytesEntry,
  shardingEntry,
  gzipEntry,
  zstdEntry,
  zlibEntry,
  lazyV1('bz2', withLevels(BOUNDED, levels(1, 9, 9)), bz2Module),
  lazyV1('lzma', BOUNDED, lzmaModule),
  lazyV3V1('blosc', BLOSC_CAPABILITIES, bloscModule),
  crc32cEntry,
  // numcodecs' codecs under zarr-python 3's names (also what Zarr v2 ids map to: numpy/numcodecs.ts).
  lazy('numcodecs.fixedscaleoffset', 'array_to_array', PLAIN_CAPABILITIES, fixedScaleOffsetModule),
  lazy('numcodecs.quantize', 'array_to_array', PLAIN_CAPABILITIES, quantizeModule),
  lazy('numcodecs.bitround', 'array_to_array', PLAIN_CAPABILITIES, bitRoundModule),
  lazy('numcodecs.packbits', 'array_to_array', PLAIN_CAPABILITIES, packBitsModule),
  lazy('numcodecs.astype', 'array_to_array', PLAIN_CAPABILITIES, asTypeModule),
  lazy('numcodecs.categorize', 'array_to_array', PLAIN_CAPABILITIES, categorizeModule),
  lazy('numcodecs.json2', 'array_to_bytes', PLAIN_CAPABILITIES, json2Module),
  lazy('numcodecs.msgpack2', 'array_to_bytes', PLAIN_CAPABILITIES, msgpack2Module),
  lazy('numcodecs.zlib', 'bytes_to_bytes', zlibEntry.capabilities, compressorsModule),
  lazy('numcodecs.gzip', 'bytes_to_bytes', withLevels(BOUNDED, levels(0, 9, 1)), compressorsModule),
  lazy('numcodecs.bz2', 'bytes_to_bytes', withLevels(BOUNDED, levels(1, 9, 1)), compressorsModule),
  lazy('numcodecs.lzma', 'bytes_to_bytes', BOUNDED, compressorsModule),
  lazy('numcodecs.zstd', 'bytes_to_bytes', withLevels(zstdEntry.capabilities, levels(-131072, 22, 1, 'clamp')), compressorsModule),
  lazy('numcodecs.blosc', 'bytes_to_bytes', BLOSC_CAPABILITIES, compressorsModule),
  lazy('numcodecs.lz4', 'bytes_to_bytes', BOUNDED_INTO, lz4Module),
  lazy('numcodecs.shuffle', 'bytes_to_bytes', BOUNDED_FIXED, shuffleModule),
  lazy('numcodecs.crc32', 'bytes_to_bytes', BOUNDED_FIXED, checksum32Module),
  lazy('numcodecs.adler32', 'bytes_to_bytes', BOUNDED_FIXED, checksum32Module),
  lazy('numcodecs.fletcher32', 'bytes_to_bytes', BOUNDED_FIXED, checksum32Module),
  lazy('numcodecs.jenkins_lookup3', 'bytes_to_bytes', BOUNDED_FIXED, jenkinsModule),
  // HDF5's LZ4 framing, for virtualized HDF5 chunks (only Floe reads it: hdf5-lz4.ts).
  lazy('floe.hdf5_lz4', 'bytes_to_bytes', BOUNDED, hdf5Lz4Module),
  // h5py's LZF filter (32000), for virtualized HDF5 chunks (only Floe reads it: lzf.ts).
  lazy('floe.lzf', 'bytes_to_bytes', BOUNDED, lzfModule),
]);

/** Implementations loaded so far, by name: the eager entries from the start. */
const loaded = new Map<string, CodecImplementation>(CODECS.flatMap((d) => (isLazy(d) ? [] : [[d.name, d] as const])));
const lazyByName = new Map<string, LazyCodec>(CODECS.flatMap((d) => (isLazy(d) ? [[d.name, d] as const] : [])));

/** What a stub declares, in a form two declarations compare by (key order aside). */
const declared = (d: Descriptor): string => {
  const { levels: range, ...flags } = d.capabilities;
  const v1 = isLazy(d) ? d.zarrV1Names : d.kind === 'bytes_to_bytes' ? (d.zarrV1?.names ?? []) : [];
  const v3 = isLazy(d) ? d.zarrV3 : d.zarrV3 !== undefined;
  const sortedFlags = Object.entries(flags).sort(([a], [b]) => a.localeCompare(b));
  const levelRange = range ? [range.key, range.min, range.max, range.default ?? null, range.outside] : null;
  return JSON.stringify([d.name, d.kind, v3, v1, sortedFlags, levelRange]);
};

/** Loads the module of `stub` and records its entries, each held to what its stub declares. */
async function loadStub(stub: LazyCodec): Promise<void> {
  for (const entry of await stub.load()) {
    const expected = lazyByName.get(entry.name);
    const icechunk = entry.kind === 'bytes_to_bytes' && entry.icechunk !== undefined;
    if (!expected || icechunk || declared(expected) !== declared(entry)) throw new Error(`codec registry: the stub of ${entry.name} does not match what its module declares`);
    loaded.set(entry.name, entry);
  }
}

/** Every implementation, loading those not yet loaded (tests, tools); order as in CODECS. */
export async function allCodecImplementations(): Promise<readonly CodecImplementation[]> {
  await Promise.all([...lazyByName.values()].filter((stub) => !loaded.has(stub.name)).map(loadStub));
  return CODECS.map((d) => implementationOf(d.name));
}

/**
 * Loads the codecs that `doc` (a metadata document of any format: bytes, text or parsed JSON)
 * names: a Zarr v3 name ("numcodecs.delta"), a numcodecs id ("id": "delta") or a v1 compression
 * ("compression": "bz2"). Every path that opens or creates an array awaits this before building
 * its codecs, which is synchronous. A false match (an attribute that looks like a codec) only
 * loads a module early.
 */
export async function loadCodecsMentionedIn(doc: unknown): Promise<void> {
  const stubs = [...lazyByName.values()].filter((stub) => !loaded.has(stub.name));
  if (stubs.length === 0) return;
  const text = textOf(doc);
  await Promise.all(stubs.filter((stub) => mentionOf(stub).test(text)).map(loadStub));
}

function textOf(doc: unknown): string {
  if (doc instanceof Uint8Array) return new TextDecoder().decode(doc);
  if (typeof doc === 'string') return doc;
  return JSON.stringify(doc, (_key, value: unknown) => (typeof value === 'bigint' ? String(value) : value)) ?? '';
}

const escaped = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** How a document names `stub`: its v3 name, its numcodecs id under "id", its v1 names under "compression". */
function mentionOf(stub: LazyCodec): RegExp {
  const forms: string[] = [];
  if (stub.zarrV3) forms.push(`"${escaped(stub.name)}"`);
  if (stub.name.startsWith('numcodecs.')) forms.push(`"id"\\s*:\\s*"${escaped(stub.name.slice('numcodecs.'.length))}"`);
  for (const name of stub.zarrV1Names) forms.push(`"compression"\\s*:\\s*"${escaped(name)}"`);
  return new RegExp(forms.join('|'));
}

/** The loaded implementation called `name`; a stub not yet loaded is a bug in the caller's path. */
function implementationOf(name: string): CodecImplementation {
  const entry = loaded.get(name);
  if (!entry) throw new Error(`codec registry: ${name} is used before its module loaded; await loadCodecsMentionedIn(metadata) on this path`);
  return entry;
}

/** An entry that Zarr v3 metadata can name. */
export type ZarrV3Entry = ArrayCodecImplementation | (BytesCodecImplementation & { readonly zarrV3: BytesCodecFactory });
/** An entry that a Zarr v1 `compression` can name. */
export type ZarrV1Entry = BytesCodecImplementation & { readonly zarrV1: { readonly names: readonly string[]; readonly create: V1CompressorFactory } };

/** Icechunk's "no compression" (header byte 0): not a codec, so not an entry, but named alike. */
const NO_FILE_COMPRESSION: FileCompression = Object.freeze({
  byte: 0,
  compress: (payload: Uint8Array) => payload,
  decompress: (body: Uint8Array, options?: FileDecompressOptions) => {
    // Held to the same limit as a compressed payload, so a file type's limit means one thing.
    if (options?.maxBytes !== undefined && body.length > options.maxBytes) {
      throw limitExceeded('decoded-bytes', options.maxBytes, `an uncompressed payload of ${body.length} bytes is over the ${options.maxBytes}-byte limit for this object; raise the limit with configureLimits if it is genuine`, { actual: body.length, codec: 'none', where: options.where });
    }
    return body;
  },
});

const v3Named = (d: Descriptor): boolean => (isLazy(d) ? d.zarrV3 : d.zarrV3 !== undefined);
const v1Names = (d: Descriptor): readonly string[] => (isLazy(d) ? d.zarrV1Names : d.kind === 'bytes_to_bytes' ? (d.zarrV1?.names ?? []) : []);

/**
 * A map from the keys `keysOf` gives each codec, after `seed`; two claims on one key are a bug in
 * the list above, so they fail loudly at load (a plain Error: no user data can cause it).
 */
function indexBy<K, V>(keysOf: (d: Descriptor) => readonly (readonly [K, V])[], what: string, seed: readonly (readonly [K, V])[] = []): ReadonlyMap<K, V> {
  const map = new Map<K, V>(seed);
  for (const descriptor of CODECS) {
    for (const [key, value] of keysOf(descriptor)) {
      if (map.has(key)) throw new Error(`codec registry: two entries claim ${what} ${String(key)}`);
      map.set(key, value);
    }
  }
  return map;
}

// Icechunk file compressions are eager entries only (a stub declares none: loadStub checks).
const fileCompressionOf = (d: Descriptor): FileCompression | undefined => (!isLazy(d) && d.kind === 'bytes_to_bytes' ? d.icechunk : undefined);

const byName = indexBy((d) => [[d.name, d]], 'the name');
const byV3Name = indexBy((d) => (v3Named(d) ? [[d.name, d]] : []), 'the Zarr v3 name');
const byV1Name = indexBy((d) => v1Names(d).map((n) => [n, d] as const), 'the Zarr v1 name');
const fileCompressions = indexBy((d) => {
  const compression = fileCompressionOf(d);
  return compression ? [[d.name, compression]] : [];
}, 'the Icechunk compression name', [['none', NO_FILE_COMPRESSION]]);
const fileCompressionNames = indexBy((d) => {
  const compression = fileCompressionOf(d);
  return compression ? [[compression.byte, d.name]] : [];
}, 'the Icechunk compression byte', [[NO_FILE_COMPRESSION.byte, 'none']]);

/**
 * Codecs other implementations write that Floe refuses, and why (said in the refusal, beside the
 * list of what Floe implements). For pcodec and ZFP no maintained JavaScript implementation exists
 * (npm has none under those names, nor numcodecs' WASM package); pickle would run Python code.
 */
const UNAVAILABLE: Readonly<Record<string, string>> = {
  'numcodecs.pcodec': 'no maintained JavaScript implementation of pcodec exists',
  'numcodecs.zfpy': 'no maintained JavaScript implementation of ZFP exists',
  'numcodecs.pickle': 'unpickling runs arbitrary Python code',
};

/** Why Floe does not implement the codec called `name` (a v3 name), when it is one it knows of. */
export function unavailableReason(name: string): string | undefined {
  return UNAVAILABLE[name];
}

/** Zarr v3 codec names Floe implements, in registry order. */
export const ZARR_V3_CODEC_NAMES: readonly string[] = Object.freeze([...byV3Name.keys()]);
/** Zarr v1 compressor names Floe implements (without "none"), in registry order. */
export const ZARR_V1_COMPRESSOR_NAMES: readonly string[] = Object.freeze([...byV1Name.keys()]);
/** Icechunk file compressions by header byte, "none" (0) first. */
export const ICECHUNK_FILE_COMPRESSIONS: ReadonlyMap<number, string> = fileCompressionNames;

/** What is known of the codec called `name` without loading it (name, kind, capabilities). */
export function codecDescription(name: string): Pick<CodecImplementation, 'name' | 'kind' | 'capabilities'> | undefined {
  return byName.get(name);
}

/** The implementation called `name`, which must have loaded (see loadCodecsMentionedIn). */
export function codecImplementation(name: string): CodecImplementation | undefined {
  return byName.has(name) ? implementationOf(name) : undefined;
}

export function zarrV3Implementation(name: string): ZarrV3Entry | undefined {
  return byV3Name.has(name) ? (implementationOf(name) as ZarrV3Entry) : undefined;
}

/** By v1 name: "gzip" is zlib's alias in v1 (an RFC 1950 stream), not the v3 gzip codec. */
export function zarrV1Implementation(name: string): ZarrV1Entry | undefined {
  const descriptor = byV1Name.get(name);
  return descriptor ? (implementationOf(descriptor.name) as ZarrV1Entry) : undefined;
}

/** The file compression called `name` ("none", "zstd"), or undefined when none is. */
export function icechunkFileCompression(name: string): FileCompression | undefined {
  return fileCompressions.get(name);
}

/** The name of the file compression with header byte `byte`, or undefined when Floe has none. */
export function icechunkFileCompressionName(byte: number): string | undefined {
  return fileCompressionNames.get(byte);
}

/** A Zarr v3 bytes -> bytes codec by name (tests, benches, tools); chains use pipeline.ts. */
export function createZarrV3BytesCodec(name: string, configuration: Record<string, unknown> | undefined, context: BytesCodecContext): BytesToBytesCodec {
  const entry = zarrV3Implementation(name);
  if (entry?.kind !== 'bytes_to_bytes') throw floeError('UNSUPPORTED', `"${name}" is not a Zarr v3 bytes -> bytes codec Floe implements`);
  return entry.zarrV3(configuration, context);
}

/** A Zarr v1 compressor by name from raw compression_opts; zarr-v1/meta.ts adds the context to errors. */
export function createZarrV1Compressor(name: string, compressionOpts: unknown, context: BytesCodecContext): BytesToBytesCodec {
  const entry = zarrV1Implementation(name);
  if (!entry) throw floeError('UNSUPPORTED', `"${name}" is not a Zarr v1 compressor Floe implements`);
  return entry.zarrV1.create(compressionOpts, context, name);
}
