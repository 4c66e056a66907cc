// Chunk manifest files: for each array (by node id) its chunk refs sorted by index. A ref is
// native (a chunk object in this repository), inline (the bytes themselves) or virtual (a byte
// range of an object elsewhere). Dictionary-compressed virtual locations are decompressed on
// read; Floe writes plain locations (compression_algorithm = 0), which the spec allows.
import { floeError } from '../../errors.ts';
import { binarySearch, compareIndexLists } from '../indexing.ts';
import type { ChunkRef, Extra, VirtualChecksum } from './chunk-ref.ts';
import { decodeGuarded, FlatbufferReader } from './flatbuffer-reader.ts';
import { decodeFile } from './framing.ts';
import type { SpecVersion } from './header.ts';
import { asChunkId, asManifestId, asNodeId, compareIds, type ManifestId, type NodeId } from './ids.ts';
import { materializeRefs, refAt, RefColumnsBuilder, searchColumns, type RefColumns } from './manifest-columns.ts';
import { zstdDecompress } from './zstd.ts';

// The ref types live in chunk-ref.ts (manifest-columns.ts needs them without this module).
export type { ChunkRef, InlineChunkRef, NativeChunkRef, VirtualChecksum, VirtualChunkRef } from './chunk-ref.ts';

export interface ArrayManifest extends Extra {
  nodeId: NodeId;
  /**
   * Sorted by index, lexicographically. In a decoded manifest the objects are built on first
   * access; use findChunkRef / chunkRefCount to avoid building them all.
   */
  refs: ChunkRef[];
}

export interface Manifest extends Extra {
  specVersion: SpecVersion;
  id: ManifestId;
  /** Sorted by node id. */
  arrays: ArrayManifest[];
}

// Field slots of the Manifest, ArrayManifest and ChunkRef tables (manifest-encode.ts writes them).
export const M = { id: 0, arrays: 1, locationDictionary: 2, compressionAlgorithm: 3, extra: 4 };
export const AM = { nodeId: 0, refs: 1, extra: 2 };
export const R = { index: 0, inline: 1, offset: 2, length: 3, chunkId: 4, location: 5, etag: 6, lastModified: 7, compressedLocation: 8, extra: 9 };
export const COMPRESSION_NONE = 0;
const COMPRESSION_ZSTD_DICTIONARY = 1;

export function decodeManifest(bytes: Uint8Array, where?: string): Manifest {
  const { header, payload } = decodeFile(bytes, 'manifest', where);
  return decodeGuarded('manifest', where, () => readManifest(new FlatbufferReader(payload, where), header.specVersion));
}

function readManifest(r: FlatbufferReader, specVersion: SpecVersion): Manifest {
  const root = r.root();
  const dictionary = r.byteVector(root, M.locationDictionary);
  const algorithm = r.u8(root, M.compressionAlgorithm, COMPRESSION_ZSTD_DICTIONARY);
  r.requiredVector(root, M.arrays, 4, 'Manifest.arrays');
  const arrays = r.tables(root, M.arrays).map((t): ArrayManifest => {
    const refs = r.requiredVector(t, AM.refs, 4, 'ArrayManifest.refs');
    const nodeId = asNodeId(r.requiredStruct(t, AM.nodeId, 8, 'ArrayManifest.node_id'));
    const columns = readRefColumns(r, refs, (ref) => readRef(r, ref, algorithm, dictionary));
    return lazyArrayManifest(nodeId, columns, r.byteVector(t, AM.extra)?.slice());
  });
  return withExtra<Manifest>({ specVersion, id: asManifestId(r.requiredStruct(root, M.id, 12, 'Manifest.id')), arrays }, r.byteVector(root, M.extra));
}

/** Sets `extra` only when the table has one, so decoded objects equal extra-less models. */
function withExtra<T extends Extra>(value: T, extra: Uint8Array | undefined): T {
  if (extra !== undefined) value.extra = extra.slice();
  return value;
}

/**
 * The hot loop of manifest decoding: native refs go straight from the flatbuffer into columns,
 * with the same checks FlatbufferReader makes (tables, vtables and vectors inside the buffer);
 * other refs take the general path through `readOther`.
 */
function readRefColumns(r: FlatbufferReader, vec: { start: number; length: number }, readOther: (table: number) => ChunkRef): RefColumns {
  const bytes = r.bytes;
  const n = bytes.length;
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out = new RefColumnsBuilder(vec.length);
  const { chunkIds, offsets, lengths } = out;
  // Chunk ids are copied as three words: DataView accesses are bounds-checked by the engine.
  const ids = new DataView(chunkIds.buffer, chunkIds.byteOffset, chunkIds.byteLength);
  for (let i = 0; i < vec.length; i++) {
    const slot = vec.start + i * 4;
    const t = slot + dv.getUint32(slot, true);
    if (t + 4 > n) r.corrupt(`chunk ref ${i} lies outside the buffer`);
    const vt = t - dv.getInt32(t, true);
    if (vt < 0 || vt + 4 > n) r.corrupt(`the vtable of chunk ref ${i} lies outside the buffer`);
    const vtSize = dv.getUint16(vt, true);
    if (vtSize < 4 || vtSize % 2 !== 0 || vt + vtSize > n || t + Math.max(dv.getUint16(vt + 2, true), 4) > n) r.corrupt(`chunk ref ${i} has a malformed vtable`);
    const idAt = fieldAt(dv, t, vt, vtSize, R.chunkId);
    // Refs with `extra` bytes take the general path too: the columns have no room for them.
    if (idAt === 0 || fieldAt(dv, t, vt, vtSize, R.inline) !== 0 || fieldAt(dv, t, vt, vtSize, R.extra) !== 0) {
      const ref = readOther(t);
      const at = out.coordSlot(i, ref.index.length); // may grow the column: read it after
      out.coordinates.set(ref.index, at);
      out.other.set(i, ref);
      continue;
    }
    const indexField = fieldAt(dv, t, vt, vtSize, R.index);
    if (indexField === 0 || indexField + 4 > n) r.corrupt('required ChunkRef.index is missing');
    const header = indexField + dv.getUint32(indexField, true);
    if (header + 4 > n) r.corrupt(`the index of chunk ref ${i} lies outside the buffer`);
    const dims = dv.getUint32(header, true);
    if (header + 4 + dims * 4 > n) r.corrupt(`the index of chunk ref ${i} lies outside the buffer`);
    const at = out.coordSlot(i, dims);
    const coords = out.coordinates;
    for (let k = 0; k < dims; k++) coords[at + k] = dv.getUint32(header + 4 + k * 4, true);
    if (idAt + 12 > n) r.corrupt(`the chunk id of chunk ref ${i} lies outside the buffer`);
    ids.setUint32(i * 12, dv.getUint32(idAt));
    ids.setUint32(i * 12 + 4, dv.getUint32(idAt + 4));
    ids.setUint32(i * 12 + 8, dv.getUint32(idAt + 8));
    offsets[i] = readU64(r, dv, fieldAt(dv, t, vt, vtSize, R.offset));
    lengths[i] = readU64(r, dv, fieldAt(dv, t, vt, vtSize, R.length));
  }
  return out.finish();
}

/** Absolute position of a field, or 0 when absent (vtable already checked). */
function fieldAt(dv: DataView, table: number, vtable: number, vtableSize: number, slot: number): number {
  const entry = 4 + slot * 2;
  if (entry >= vtableSize) return 0;
  const offset = dv.getUint16(vtable + entry, true);
  return offset === 0 ? 0 : table + offset;
}

function readU64(r: FlatbufferReader, dv: DataView, at: number): number {
  if (at === 0) return 0;
  if (at + 8 > dv.byteLength) r.corrupt(`a 64-bit field at ${at} lies outside the buffer`);
  return r.safeU64At(at);
}

const COLUMNS = Symbol('refColumns');
interface LazyRefs {
  columns: RefColumns;
  refs?: ChunkRef[];
}

/**
 * An ArrayManifest whose `refs` array is built on first access (then cached; assigning replaces
 * it). Until then lookups search the columns.
 */
function lazyArrayManifest(nodeId: NodeId, columns: RefColumns, extra: Uint8Array | undefined): ArrayManifest {
  const state: LazyRefs = { columns };
  const array = { nodeId } as ArrayManifest;
  if (extra !== undefined) array.extra = extra;
  Object.defineProperty(array, 'refs', {
    enumerable: true,
    configurable: true,
    get: () => (state.refs ??= materializeRefs(state.columns)),
    set: (refs: ChunkRef[]) => {
      state.refs = refs;
    },
  });
  Object.defineProperty(array, COLUMNS, { value: state, enumerable: false });
  return array;
}

/** Number of refs, without building them. */
export function chunkRefCount(array: ArrayManifest): number {
  const state = (array as ArrayManifest & { [COLUMNS]?: LazyRefs })[COLUMNS];
  return state && !state.refs ? state.columns.count : array.refs.length;
}

function readRef(r: FlatbufferReader, t: number, algorithm: number, dictionary: Uint8Array | undefined): ChunkRef {
  const index = r.u32Vector(t, R.index) ?? r.corrupt('required ChunkRef.index is missing');
  const extra = r.byteVector(t, R.extra);
  const inline = r.byteVector(t, R.inline);
  if (inline) return withExtra<ChunkRef>({ kind: 'inline', index, data: inline.slice() }, extra);
  const chunkId = r.structBytes(t, R.chunkId, 12);
  const offset = r.u64n(t, R.offset);
  const length = r.u64n(t, R.length);
  if (chunkId) return withExtra<ChunkRef>({ kind: 'native', index, chunkId: asChunkId(chunkId), offset, length }, extra);
  let location = r.string(t, R.location);
  if (location === undefined) {
    const compressed = r.byteVector(t, R.compressedLocation) ?? r.corrupt('a chunk ref is neither inline, native nor virtual');
    location = decompressLocation(r, compressed, algorithm, dictionary);
  }
  const etag = r.string(t, R.etag);
  const lastModified = r.u32(t, R.lastModified);
  const checksum: VirtualChecksum = etag !== undefined ? { etag } : lastModified > 0 ? { lastModified } : null;
  return withExtra<ChunkRef>({ kind: 'virtual', index, location, offset, length, checksum }, extra);
}

function decompressLocation(r: FlatbufferReader, bytes: Uint8Array, algorithm: number, dictionary: Uint8Array | undefined): string {
  let raw: Uint8Array;
  if (algorithm === COMPRESSION_NONE) raw = bytes;
  else if (algorithm === COMPRESSION_ZSTD_DICTIONARY) {
    if (!dictionary) r.corrupt('compressed virtual locations but no location_dictionary');
    // `where` only when known: the codec options take no explicit undefined.
    raw = zstdDecompress(bytes, { ...(r.where === undefined ? {} : { where: r.where }), dictionary, maxBytes: 1 << 20 });
  } else {
    throw floeError('UNSUPPORTED', `manifest location compression algorithm ${algorithm} is unknown`, { where: r.where });
  }
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(raw);
  } catch {
    return r.corrupt('a compressed virtual location is not UTF-8');
  }
}

/**
 * Lexicographic order of chunk indices (shorter first on a common prefix). The comparator itself,
 * not a wrapper: commits sort and check every ref with it, mostly in unoptimised code, where each
 * extra call level is paid per comparison.
 */
export const compareChunkIndices: (a: readonly number[], b: readonly number[]) => number = compareIndexLists;

/** Binary search over an array manifest's sorted refs (over the columns if not yet built). */
export function findChunkRef(array: ArrayManifest, index: readonly number[]): ChunkRef | undefined {
  const state = (array as ArrayManifest & { [COLUMNS]?: LazyRefs })[COLUMNS];
  if (state && !state.refs) {
    const at = searchColumns(state.columns, index);
    return at < 0 ? undefined : refAt(state.columns, at);
  }
  // The search of binarySearch, written out: this lookup runs once per chunk read.
  let lo = 0;
  let hi = array.refs.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const ref = array.refs[mid];
    // 0 <= lo <= mid <= hi < length; only a sparse array can have no element there.
    if (ref === undefined) throw floeError('INVALID_ARGUMENT', `chunk ref ${mid} of ${array.refs.length} is missing`);
    const d = compareIndexLists(ref.index, index);
    if (d === 0) return ref;
    if (d < 0) lo = mid + 1;
    else hi = mid - 1;
  }
  return undefined;
}

/** Binary search for an array's refs by node id. */
export function findArrayManifest(manifest: Manifest, nodeId: NodeId): ArrayManifest | undefined {
  return binarySearch(manifest.arrays, (array) => compareIds(array.nodeId, nodeId));
}
