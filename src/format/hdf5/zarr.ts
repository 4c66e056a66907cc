// An HDF5 dataset as a Zarr v3 array: data type, fill value, codecs (the filter pipeline mapped
// to Zarr codecs, or the reason it cannot be), and its chunks as byte ranges of the file, from
// whichever layout and chunk index it uses. netCDF-4's bookkeeping attributes become dimension
// names (attributes.ts); dimension scales that are not netCDF variables are not arrays.
import type { JsonValue } from '../json.ts';
import type { CodecMetadata } from '../codecs/types.ts';
import { splitContiguous } from '../netcdf3/layout.ts';
import type { ArrayMetadataInput } from '../zarr/metadata.ts';
import { readExtensibleArray, readFixedArray, type ArrayEntry } from './arrays.ts';
import { readChunkBtree, type ChunkRecord } from './btree1.ts';
import { readBtree2 } from './btree2.ts';
import { attributesOf, dimensionNamesOf, isDimensionOnly, numbersOf } from './attributes.ts';
import type { Hdf5Dataset, Hdf5File } from './file.ts';
import { Cursor, corrupt, UNDEFINED, type Hdf5Source } from './io.ts';
import type { Filter, Hdf5Type } from './messages.ts';

/** Options of {@link describeDataset}. */
export interface Hdf5DescribeOptions {
  /** Chunks one dataset may have. */
  readonly maxChunks: number;
  /** Largest chunk a contiguous dataset is split into. */
  readonly maxChunkBytes: number;
  /** Map HDF5's LZ4 filter (32004) and h5py's LZF (32000) to Floe's own `floe.hdf5_lz4` / `floe.lzf` codecs, which only Floe reads. */
  readonly allowFloeOnlyCodecs?: boolean;
}

export interface Hdf5Chunk {
  readonly index: readonly number[];
  readonly offset: number;
  readonly length: number;
}

/** A chunk stored with some filters skipped (bit i of `filterMask`: filter i was not applied). */
export interface Hdf5MaskedChunk extends Hdf5Chunk {
  readonly filterMask: number;
}

/** Bytes of filter-masked chunks one dataset may have re-encoded and stored natively. */
export const MAX_MASKED_BYTES = 256 * 1024 * 1024;

export type Hdf5ArrayDescription =
  | {
      readonly kind: 'array';
      readonly path: string;
      readonly metadata: ArrayMetadataInput;
      readonly chunks: readonly Hdf5Chunk[];
      readonly stored: readonly { readonly index: readonly number[]; readonly bytes: Uint8Array }[];
      readonly chunkIndex: string;
      /** Chunks whose filter mask skipped filters: the caller re-encodes them with `filterCodecs` and stores them. */
      readonly masked: readonly Hdf5MaskedChunk[];
      /** The codec of each filter, in pipeline order (after `bytes`). */
      readonly filterCodecs: readonly CodecMetadata[];
      /** Bytes of one decoded chunk. */
      readonly chunkBytes: number;
    }
  | { readonly kind: 'skipped'; readonly path: string; readonly reason: string }
  | { readonly kind: 'dimension'; readonly path: string };

function dataTypeOf(t: Hdf5Type): { name: string; endian?: 'little' | 'big' } | string {
  switch (t.kind) {
    case 'int':
      if (![1, 2, 4, 8].includes(t.size)) return `a ${t.size}-byte integer type`;
      return { name: `${t.signed ? 'int' : 'uint'}${t.size * 8}`, ...(t.size > 1 ? { endian: t.bigEndian ? 'big' : 'little' } : {}) };
    case 'float':
      if (![2, 4, 8].includes(t.size)) return `a ${t.size}-byte float type`;
      return { name: `float${t.size * 8}`, endian: t.bigEndian ? 'big' : 'little' };
    case 'string':
      return { name: t.size === 1 ? 'uint8' : `r${t.size * 8}` };
    case 'enum':
      return dataTypeOf(t.base);
    case 'vlen-string':
      return 'variable-length strings (they live in the global heap: the chunks hold only heap references)';
    case 'vlen':
      return 'a variable-length sequence type';
    case 'reference':
      return 'an object reference type';
    case 'other':
      return t.what;
  }
}

function fillValueOf(t: Hdf5Type, fill: Uint8Array | undefined, dataType: string): JsonValue {
  if (!fill) return dataType.startsWith('r') ? Array.from(new Uint8Array(Number(dataType.slice(1)) / 8)) : 0;
  if (dataType.startsWith('r')) return Array.from(fill.subarray(0, Number(dataType.slice(1)) / 8));
  if (t.kind === 'string') return fill[0] ?? 0;
  const n = numbersOf(t, fill, 1);
  return n?.[0] ?? 0;
}

/** The Zarr codecs after `bytes` for an HDF5 filter pipeline, or why there are none. */
function codecsOf(filters: readonly Filter[], elementSize: number, options: Hdf5DescribeOptions): CodecMetadata[] | string {
  const out: CodecMetadata[] = [];
  for (const f of filters) {
    switch (f.id) {
      case 1:
        out.push({ name: 'numcodecs.zlib', configuration: { level: f.values[0] ?? 6 } });
        break;
      case 2:
        out.push({ name: 'numcodecs.shuffle', configuration: { elementsize: f.values[0] ?? elementSize } });
        break;
      case 3:
        out.push({ name: 'numcodecs.fletcher32', configuration: {} });
        break;
      case 307:
        out.push({ name: 'numcodecs.bz2', configuration: { level: Math.min(9, Math.max(1, f.values[0] ?? 9)) } });
        break;
      case 32001: {
        const [, , typesize, , clevel, shuffle, compressor] = f.values;
        const cname = ['blosclz', 'lz4', 'lz4hc', 'snappy', 'zlib', 'zstd'][compressor ?? 0] ?? 'blosclz';
        out.push({ name: 'blosc', configuration: { cname, clevel: clevel ?? 5, shuffle: ['noshuffle', 'shuffle', 'bitshuffle'][shuffle ?? 0] ?? 'noshuffle', typesize: typesize ?? elementSize, blocksize: 0 } });
        break;
      }
      case 32000:
        if (!options.allowFloeOnlyCodecs) return "its chunks are compressed with h5py's LZF (HDF5 filter 32000): only Floe's own floe.lzf codec decodes it, which no other Zarr reader has (virtualize's allowFloeOnlyCodecs option, floe virtualize --allow-floe-only-codecs, maps it anyway)";
        out.push({ name: 'floe.lzf' });
        break;
      case 32004:
        if (!options.allowFloeOnlyCodecs) return "its chunks use HDF5's LZ4 framing (filter 32004), which is not numcodecs' LZ4: only Floe's own floe.hdf5_lz4 codec decodes it, which no other Zarr reader has (virtualize's allowFloeOnlyCodecs option, floe virtualize --allow-floe-only-codecs, maps it anyway)";
        out.push({ name: 'floe.hdf5_lz4' });
        break;
      case 32015:
        return 'its chunks are compressed with zstd (HDF5 filter 32015), which Floe does not map: no filter plugin on this platform writes a fixture to check it against';
      default:
        return `its chunks use HDF5 filter ${f.id}${f.name ? ` (${f.name})` : ''}, which Floe cannot map to a Zarr codec`;
    }
  }
  return out;
}

const product = (xs: readonly number[]) => xs.reduce((a, b) => a * b, 1);

/** Every chunk index of a grid, in C order. */
function* gridIndices(grid: readonly number[]): Generator<number[]> {
  const total = product(grid);
  const index = grid.map(() => 0);
  for (let i = 0; i < total; i++) {
    yield [...index];
    for (let j = grid.length - 1; j >= 0; j--) {
      index[j] = (index[j] ?? 0) + 1;
      if ((index[j] ?? 0) < (grid[j] ?? 1)) break;
      index[j] = 0;
    }
  }
}

/** A dataset as a Zarr array (or skipped with the reason, or a netCDF dimension). */
export async function describeDataset(src: Hdf5Source, file: Hdf5File, ds: Hdf5Dataset, options: Hdf5DescribeOptions): Promise<Hdf5ArrayDescription> {
  const object = `/${ds.path}`;
  const skip = (reason: string): Hdf5ArrayDescription => ({ kind: 'skipped', path: ds.path, reason });
  if (isDimensionOnly(ds)) return { kind: 'dimension', path: ds.path };
  if (ds.problem) return skip(ds.problem);
  const dims = ds.space.dims;
  if (dims === null) return skip('it has a null dataspace (no elements)');
  const dt = dataTypeOf(ds.type);
  if (typeof dt === 'string') return skip(`its type is ${dt}, which Floe cannot reference`);
  const elementSize = ds.type.kind === 'enum' ? ds.type.size : ds.type.kind === 'int' || ds.type.kind === 'float' || ds.type.kind === 'string' ? ds.type.size : 1;
  let total = elementSize;
  for (const n of dims) {
    total *= n;
    if (!Number.isSafeInteger(total)) throw corrupt(src.name, object, `its declared size overflows (${dims.join(' x ')} elements of ${elementSize} bytes)`);
  }
  const filterCodecs = codecsOf(ds.filters, elementSize, options);
  if (typeof filterCodecs === 'string') return skip(filterCodecs);
  const bytesCodec: CodecMetadata = dt.endian ? { name: 'bytes', configuration: { endian: dt.endian } } : { name: 'bytes' };
  const attributes = await attributesOf(file, ds.attributes, object);
  const names = await dimensionNamesOf(file, ds, dims.length);
  const base = {
    shape: dims,
    dataType: dt.name,
    fillValue: fillValueOf(ds.type, ds.fill, dt.name) as NonNullable<ArrayMetadataInput['fillValue']>,
    attributes,
    ...(names ? { dimensionNames: names } : {}),
  };
  const layout = ds.layout;
  const array = (chunkShape: readonly number[], codecs: CodecMetadata[], chunks: Hdf5Chunk[], chunkIndex: string, stored: { index: number[]; bytes: Uint8Array }[] = [], masked: Hdf5MaskedChunk[] = []): Hdf5ArrayDescription => ({
    kind: 'array',
    path: ds.path,
    metadata: { ...base, chunkShape: chunkShape.map((c) => Math.max(1, c)), codecs },
    chunks,
    stored,
    chunkIndex,
    masked,
    filterCodecs: codecs.slice(1),
    chunkBytes: product(chunkShape) * elementSize,
  });
  const checkRange = (offset: number, length: number, what: string) => {
    if (offset === UNDEFINED || offset < 0 || length < 0 || offset + length > src.size) {
      throw corrupt(src.name, object, `${what} (${length} bytes at byte ${offset}) lies past the end of the file (${src.size} bytes)`);
    }
  };
  if (layout.kind === 'other') return skip(`its layout is ${layout.what}, which Floe cannot reference`);
  if (layout.kind === 'compact') {
    if (layout.data.length < total) throw corrupt(src.name, object, `its compact data holds ${layout.data.length} of ${total} bytes`);
    return array(dims, [bytesCodec], [], 'compact', total > 0 ? [{ index: dims.map(() => 0), bytes: layout.data.slice(0, total) }] : []);
  }
  if (layout.kind === 'contiguous') {
    if (ds.filters.length > 0) return skip('it is contiguous with filters, which HDF5 does not allow');
    const chunkShape = splitContiguous(dims, elementSize, options.maxChunkBytes).chunkShape.map((c) => Math.max(1, c));
    if (layout.address === UNDEFINED || total === 0) return array(chunkShape, [bytesCodec], [], 'contiguous');
    checkRange(layout.address, total, 'its data');
    const grid = dims.map((n, i) => Math.ceil(n / (chunkShape[i] ?? 1)));
    if (product(grid) > options.maxChunks) return skip(`split into ${options.maxChunkBytes}-byte chunks it has ${product(grid)} chunks, more than ${options.maxChunks}`);
    const chunkBytes = product(chunkShape) * elementSize;
    const chunks: Hdf5Chunk[] = [];
    const stored: { index: number[]; bytes: Uint8Array }[] = [];
    for (const index of gridIndices(grid)) {
      let flat = 0;
      for (let j = 0; j < dims.length; j++) flat = flat * (dims[j] ?? 1) + (index[j] ?? 0) * (chunkShape[j] ?? 1);
      const offset = layout.address + flat * elementSize;
      const inside = Math.min(chunkBytes, layout.address + total - offset);
      if (inside === chunkBytes) chunks.push({ index, offset, length: chunkBytes });
      else {
        const bytes = new Uint8Array(chunkBytes);
        bytes.set(await src.read(offset, Math.min(inside, src.size - offset)));
        stored.push({ index, bytes });
      }
    }
    return array(chunkShape, [bytesCodec], chunks, 'contiguous', stored);
  }
  const chunkShape = layout.chunkShape;
  if (chunkShape.length !== dims.length || chunkShape.some((c) => c <= 0)) throw corrupt(src.name, object, `its chunk shape ${chunkShape.join(' x ')} does not fit its shape ${dims.join(' x ')}`);
  const codecs = [bytesCodec, ...filterCodecs];
  const grid = dims.map((n, i) => Math.ceil(n / (chunkShape[i] ?? 1)));
  const chunkBytes = product(chunkShape) * elementSize;
  if (total === 0) return array(chunkShape, codecs, [], layout.index.kind);
  const chunks: Hdf5Chunk[] = [];
  const masked: Hdf5MaskedChunk[] = [];
  const add = (index: number[], address: number, size: number, filterMask: number) => {
    if (address === UNDEFINED) return;
    if (index.some((x, i) => x < 0 || x >= (grid[i] ?? 0))) return; // a chunk beyond the current extent (the dataset shrank)
    checkRange(address, size, `chunk ${index.join(',')}`);
    const skipped = filterMask & ((1 << ds.filters.length) - 1);
    if (skipped !== 0) masked.push({ index, offset: address, length: size, filterMask: skipped });
    else chunks.push({ index, offset: address, length: size });
  };
  const idx = layout.index;
  const linear = (order: readonly number[]) => {
    // Chunk indices by linear position over the grid in `order` (slowest first).
    const out: number[][] = [];
    for (const i of gridIndices(order.map((d) => grid[d] ?? 1))) {
      const index = grid.map(() => 0);
      order.forEach((d, k) => (index[d] = i[k] ?? 0));
      out.push(index);
    }
    return out;
  };
  if (product(grid) > options.maxChunks && idx.kind !== 'btree1' && idx.kind !== 'btree2') return skip(`it has ${product(grid)} chunks, more than ${options.maxChunks}`);
  switch (idx.kind) {
    case 'btree1': {
      if (idx.address === UNDEFINED) break;
      const records: ChunkRecord[] = await readChunkBtree(src, file.superblock.sizes, idx.address, dims.length, object, options.maxChunks);
      for (const r of records) add(r.offset.map((o, i) => Math.floor(o / (chunkShape[i] ?? 1))), r.address, r.size, r.filterMask);
      break;
    }
    case 'single':
      add(dims.map(() => 0), idx.address, idx.filteredSize ?? chunkBytes, idx.filterMask ?? 0);
      break;
    case 'implicit': {
      if (idx.address === UNDEFINED) break;
      linear(dims.map((_, i) => i)).forEach((index, i) => add(index, idx.address + i * chunkBytes, chunkBytes, 0));
      break;
    }
    case 'fixed-array':
    case 'extensible-array': {
      if (idx.address === UNDEFINED) break;
      const entries: ArrayEntry[] = idx.kind === 'fixed-array'
        ? await readFixedArray(src, file.superblock.sizes, idx.address, object, options.maxChunks)
        : await readExtensibleArray(src, file.superblock.sizes, idx.address, object, options.maxChunks);
      let order = dims.map((_, i) => i);
      if (idx.kind === 'extensible-array') {
        const unlimited = (ds.space.maxDims ?? []).findIndex((m) => m === null);
        if (unlimited > 0) order = [unlimited, ...order.filter((d) => d !== unlimited)];
      }
      const indices = linear(order);
      entries.forEach((e, i) => {
        const index = indices[i];
        if (index) add(index, e.address, e.size < 0 ? chunkBytes : e.size, e.filterMask);
      });
      break;
    }
    case 'btree2': {
      if (idx.address === UNDEFINED) break;
      const tree = await readBtree2(src, file.superblock.sizes, idx.address, object, options.maxChunks);
      const O = file.superblock.sizes.offsetSize;
      const sizeBytes = tree.recordSize - O - 4 - 8 * dims.length;
      for (const r of tree.records) {
        const c = new Cursor(r, file.superblock.sizes, src.name, object);
        const address = c.address();
        let size = chunkBytes;
        let mask = 0;
        if (tree.type === 11) {
          size = c.uint(sizeBytes, 'a chunk size');
          mask = c.u32();
        }
        const index: number[] = [];
        for (let d = 0; d < dims.length; d++) index.push(c.uint(8, 'a chunk offset'));
        add(index, address, size, mask);
      }
      break;
    }
  }
  if (masked.length * (chunkBytes + 64) > MAX_MASKED_BYTES) {
    return skip(`${masked.length} of its chunks (first: ${masked[0]?.index.join(',')}) were stored with some filters skipped (HDF5's filter mask), more than the ${MAX_MASKED_BYTES} bytes Floe re-encodes and stores for one variable`);
  }
  return array(chunkShape, codecs, chunks, idx.kind, [], masked);
}
