// Scanning a NetCDF-3 file: its header read with ranged reads (a first read of 64 KiB, further
// ranges only while the header runs on), parsed and laid out as Zarr arrays by src/format/netcdf3.
// Only the header is read; chunks the file ends inside (a regular chunk at the end of a split
// dimension, see layout.ts) are read so they can be stored natively, padded.
import { refChecksum, type ByteSource } from '../engine/byte-source.ts';
import type { AbortOptions } from '../engine/storage/types.ts';
import { floeError } from '../errors.ts';
import { MAX_NETCDF3_HEADER_BYTES, parseNetcdf3Header, type Netcdf3Header } from '../format/netcdf3/header.ts';
import { netcdf3Layout, type Netcdf3Layout } from '../format/netcdf3/layout.ts';
import type { VirtualChunkSpec } from './session-store.ts';
import { nodeNameProblem, type PlannedArray, type PlannedSource, type SkippedVariable } from './virtual-plan.ts';

const FIRST_READ = 64 * 1024;
/** Refs one variable may make: a hostile header cannot make the import hold more than this. */
export const MAX_CHUNKS_PER_VARIABLE = 10_000_000;

export interface Netcdf3Scan {
  readonly header: Netcdf3Header;
  readonly layout: Netcdf3Layout;
  /** Bytes read to find the header. */
  readonly bytesRead: number;
}

export async function scanNetcdf3(source: ByteSource, maxChunkBytes: number | undefined, options?: AbortOptions): Promise<Netcdf3Scan> {
  // Each round reads only what is missing and appends it: the bytes read stay below twice the
  // header (the parser asks for at least double) plus the first read.
  let prefix = new Uint8Array(0);
  let want = Math.min(source.size, FIRST_READ);
  for (;;) {
    const more = await source.read(prefix.length, want - prefix.length, options);
    if (more.length < want - prefix.length) {
      throw floeError('CORRUPT_OBJECT', `NetCDF-3 file ${source.name} became shorter while it was read (${prefix.length + more.length} of ${want} bytes)`, { where: source.name, details: { file: source.name } });
    }
    const grown = new Uint8Array(want);
    grown.set(prefix);
    grown.set(more, prefix.length);
    prefix = grown;
    const result = parseNetcdf3Header(prefix, source.size, source.name);
    if (result.kind === 'header') return { header: result.header, layout: netcdf3Layout(result.header, source.size, source.name, maxChunkBytes), bytesRead: prefix.length };
    // The parser bounds needBytes by the file size and MAX_NETCDF3_HEADER_BYTES; it always grows.
    if (result.needBytes <= want || result.needBytes > MAX_NETCDF3_HEADER_BYTES) {
      throw floeError('CORRUPT_OBJECT', `NetCDF-3 file ${source.name}: the header cannot be read`, { where: source.name, details: { file: source.name } });
    }
    want = result.needBytes;
  }
}

/** A NetCDF-3 file as arrays to record. */
export async function planNetcdf3(source: ByteSource, file: string, options: { maxChunkBytes?: number | undefined } & AbortOptions): Promise<PlannedSource> {
  const scan = await scanNetcdf3(source, options.maxChunkBytes, options);
  const arrays: PlannedArray[] = [];
  const skipped: SkippedVariable[] = [];
  const checksum = refChecksum(source);
  for (const plan of scan.layout.arrays) {
    const name = nodeNameProblem(plan.name);
    const tooMany = plan.chunkCount > MAX_CHUNKS_PER_VARIABLE ? `it has ${plan.chunkCount} chunks, more than the ${MAX_CHUNKS_PER_VARIABLE} Floe records for one variable (each is held in memory until the commit)` : undefined;
    if (name ?? tooMany) {
      skipped.push({ source: file, variable: plan.name, reason: (name ?? tooMany) as string });
      continue;
    }
    const refs: VirtualChunkSpec[] = [];
    const stored: { index: readonly number[]; bytes: Uint8Array }[] = [];
    for (const chunk of plan.chunks()) {
      if (chunk.tail === undefined) {
        refs.push({ index: [...chunk.index], location: source.url, offset: chunk.offset, length: chunk.length, ...checksum });
        continue;
      }
      const bytes = new Uint8Array(chunk.length);
      bytes.set(await source.read(chunk.offset, chunk.tail, options));
      stored.push({ index: chunk.index, bytes });
    }
    arrays.push({ variable: plan.name, relativePath: plan.name, metadata: plan.metadata, refs, stored });
  }
  const format = scan.header.version === 1 ? 'NetCDF-3 classic' : scan.header.version === 2 ? 'NetCDF-3 64-bit offset' : 'NetCDF-3 CDF-5';
  return { source: file, format, groups: [{ relativePath: '', attributes: scan.layout.attributes }], arrays, skipped };
}
