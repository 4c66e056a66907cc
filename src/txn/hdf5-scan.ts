// Scanning an HDF5 / NetCDF-4 file: its structure read with ranged reads (64 KiB blocks, each read
// once), parsed and described as Zarr arrays by src/format/hdf5, and handed to virtualize as the
// same plan the NetCDF-3 scanner makes. Only structure is read; a compact dataset's bytes (inside
// its object header) and the tail of a split contiguous dataset are stored natively.
import { refChecksum, type ByteSource } from '../engine/byte-source.ts';
import type { AbortOptions } from '../engine/storage/types.ts';
import { readHdf5File } from '../format/hdf5/file.ts';
import { hasHdf5Signature } from '../format/hdf5/object-header.ts';
import type { Hdf5Source } from '../format/hdf5/io.ts';
import { attributesOf } from '../format/hdf5/attributes.ts';
import { describeDataset, type Hdf5MaskedChunk } from '../format/hdf5/zarr.ts';
import { createZarrV3BytesCodec, loadCodecsMentionedIn } from '../format/codecs/registry.ts';
import type { BytesToBytesCodec, CodecMetadata } from '../format/codecs/types.ts';
import { floeError, isFloeError } from '../errors.ts';
import { DEFAULT_MAX_CHUNK_BYTES } from '../format/netcdf3/layout.ts';
import { MAX_CHUNKS_PER_VARIABLE } from './netcdf3-scan.ts';
import type { VirtualChunkSpec } from './session-store.ts';
import { nodeNameProblem, type PlannedArray, type PlannedSource, type SkippedVariable } from './virtual-plan.ts';

const BLOCK = 64 * 1024;
/** Blocks kept: the structure of a file with 10,000 chunks fits many times over. */
const MAX_CACHED_BLOCKS = 1024;

/** A byte source read in aligned blocks, each block read once (while cached). */
export function blockCachedSource(source: ByteSource, options?: AbortOptions): Hdf5Source & { readonly blocksRead: () => number } {
  // Promises, so concurrent reads of one block (siblings of a B-tree level) share one read.
  const blocks = new Map<number, Promise<Uint8Array>>();
  let reads = 0;
  const block = (i: number) => {
    let b = blocks.get(i);
    if (!b) {
      b = source.read(i * BLOCK, BLOCK, options);
      reads++;
      if (blocks.size >= MAX_CACHED_BLOCKS) blocks.delete(blocks.keys().next().value as number);
      blocks.set(i, b);
      b.catch(() => blocks.delete(i));
    }
    return b;
  };
  return {
    name: source.name,
    size: source.size,
    blocksRead: () => reads,
    async read(offset, length) {
      const end = Math.min(offset + length, source.size);
      if (end <= offset) return new Uint8Array(0);
      const first = Math.floor(offset / BLOCK);
      const last = Math.floor((end - 1) / BLOCK);
      if (first === last) return (await block(first)).subarray(offset - first * BLOCK, end - first * BLOCK);
      if (last - first > 16) return source.read(offset, end - offset, options);
      const out = new Uint8Array(end - offset);
      for (let i = first; i <= last; i++) {
        const b = await block(i);
        const from = Math.max(offset, i * BLOCK);
        const to = Math.min(end, i * BLOCK + b.length);
        if (to > from) out.set(b.subarray(from - i * BLOCK, to - i * BLOCK), from - offset);
      }
      return out;
    },
  };
}

/** Options of {@link planHdf5}. */
export interface Hdf5ScanOptions extends AbortOptions {
  maxChunkBytes?: number | undefined;
  /** Map filters only Floe decodes (HDF5's LZ4 framing); default false: those variables are skipped. */
  allowFloeOnlyCodecs?: boolean | undefined;
}

/** An HDF5 or NetCDF-4 file as arrays to record. */
export async function planHdf5(source: ByteSource, file: string, options: Hdf5ScanOptions): Promise<PlannedSource & { readonly chunkIndexes: ReadonlyMap<string, string> }> {
  const src = blockCachedSource(source, options);
  const h5 = await readHdf5File(src);
  const arrays: PlannedArray[] = [];
  const skipped: SkippedVariable[] = [];
  const chunkIndexes = new Map<string, string>();
  const describe = { maxChunks: MAX_CHUNKS_PER_VARIABLE, maxChunkBytes: options.maxChunkBytes ?? DEFAULT_MAX_CHUNK_BYTES, allowFloeOnlyCodecs: options.allowFloeOnlyCodecs ?? false };
  const checksum = refChecksum(source);
  for (const ds of h5.datasets) {
    const nameProblem = ds.path.split('/').map(nodeNameProblem).find((p) => p !== undefined);
    if (nameProblem) {
      skipped.push({ source: file, variable: ds.path, reason: nameProblem });
      continue;
    }
    const d = await describeDataset(src, h5, ds, describe);
    if (d.kind === 'dimension') continue;
    if (d.kind === 'skipped') {
      skipped.push({ source: file, variable: d.path, reason: d.reason });
      continue;
    }
    let stored = d.stored;
    if (d.masked.length > 0) {
      const problem = await reencodeMasked(source, d.path, d.masked, d.filterCodecs, d.chunkBytes, options).then((chunks) => {
        stored = [...stored, ...chunks];
        return undefined;
      }, (err: unknown) => {
        if (!isFloeError(err) || isFloeError(err, 'ABORTED')) throw err;
        return `${d.masked.length} of its chunks were stored with some filters skipped (HDF5's filter mask) and could not be re-encoded: ${(err as Error).message}`;
      });
      if (problem) {
        skipped.push({ source: file, variable: d.path, reason: problem });
        continue;
      }
    }
    const refs: VirtualChunkSpec[] = d.chunks.map((c) => ({ index: [...c.index], location: source.url, offset: c.offset, length: c.length, ...checksum }));
    chunkIndexes.set(d.path, d.chunkIndex);
    arrays.push({ variable: d.path, relativePath: d.path, metadata: d.metadata, refs, stored });
  }
  const groups = [];
  for (const g of h5.groups) {
    // A group whose path is not a valid Zarr path is left out (its datasets are skipped above).
    if (g.path !== '' && g.path.split('/').some((part) => nodeNameProblem(part) !== undefined)) continue;
    groups.push({ relativePath: g.path, attributes: await attributesOf(h5, g.attributes, g.path === '' ? '/' : `/${g.path}`) });
  }
  const netcdf4 = h5.groups.some((g) => g.path === '' && g.attributes.some((a) => a.name === '_NCProperties'));
  const format = `${netcdf4 ? 'NetCDF-4' : 'HDF5'} (superblock ${h5.superblock.version})`;
  return { source: file, format, groups, arrays, skipped, chunkIndexes };
}

/**
 * Chunks HDF5 stored with some filters skipped (bit i of the mask: filter i not applied) cannot
 * share the array's codecs: each is read, decoded by the filters that were applied, checked to be
 * one whole chunk, and encoded by them all, to be stored in the repository.
 */
async function reencodeMasked(source: ByteSource, variable: string, masked: readonly Hdf5MaskedChunk[], filterCodecs: readonly CodecMetadata[], chunkBytes: number, options: AbortOptions): Promise<{ index: readonly number[]; bytes: Uint8Array }[]> {
  await loadCodecsMentionedIn(filterCodecs);
  const codecs = filterCodecs.map((c) => createZarrV3BytesCodec(c.name, c.configuration, { itemSize: Math.max(1, Number(c.configuration?.elementsize ?? 1)) }));
  const limits = { maxBytes: chunkBytes + 64 };
  const out: { index: readonly number[]; bytes: Uint8Array }[] = [];
  for (const chunk of masked) {
    let data = await source.read(chunk.offset, chunk.length, options);
    if (data.length !== chunk.length) throw floeError('CORRUPT_OBJECT', `HDF5 file ${source.name}: /${variable}: chunk ${chunk.index.join(',')} runs past the end of the file`, { where: source.name, details: { file: source.name, variable: `/${variable}` } });
    for (let i = codecs.length - 1; i >= 0; i--) if ((chunk.filterMask & (1 << i)) === 0) data = (codecs[i] as BytesToBytesCodec).decode(data, limits);
    if (data.length !== chunkBytes) throw floeError('CORRUPT_OBJECT', `HDF5 file ${source.name}: /${variable}: chunk ${chunk.index.join(',')} decodes to ${data.length} bytes, not ${chunkBytes}`, { where: source.name, details: { file: source.name, variable: `/${variable}` } });
    for (const codec of codecs) data = codec.encode(data);
    out.push({ index: chunk.index, bytes: data });
  }
  return out;
}

/** True when the file has the HDF5 signature at byte 0, 512, 1024, ... (a user block before it). */
export async function isHdf5(source: ByteSource, start: Uint8Array): Promise<boolean> {
  if (hasHdf5Signature(start)) return true;
  if (start[0] === 0x43 && start[1] === 0x44 && start[2] === 0x46) return false; // NetCDF-3's "CDF"
  for (let at = 512; at + 8 <= source.size; at *= 2) if (hasHdf5Signature(await source.read(at, 8))) return true;
  return false;
}
