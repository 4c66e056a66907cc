// The NetCDF-3 scanner reads the header only, through ranged reads: one 64 KiB read for a small
// header however large the file, and longer reads only while a long header runs on.
import { describe, expect, it } from 'vitest';
import type { ByteSource } from '../../src/engine/byte-source.ts';
import { scanNetcdf3 } from '../../src/txn/netcdf3-scan.ts';
import { encodeHeader, type HeaderModel } from '../support/netcdf3-writer.ts';

/** A file of `size` bytes starting with `header`, counting what is read. */
function source(header: Uint8Array, size: number): ByteSource & { reads: [number, number][] } {
  const reads: [number, number][] = [];
  return {
    url: 'file:///virtual/x.nc', name: '/virtual/x.nc', size, lastModified: null, reads,
    async read(offset, length) {
      reads.push([offset, length]);
      const out = new Uint8Array(Math.max(0, Math.min(length, size - offset)));
      out.set(header.subarray(offset, offset + out.length));
      return out;
    },
    close: async () => {},
  };
}

function model(attribute: string): HeaderModel {
  const m: HeaderModel = {
    version: 1, numRecords: 1000, dimensions: [{ name: 'time', length: 0 }, { name: 'x', length: 1000 }],
    attributes: [{ name: 'history', type: 2, value: attribute }],
    variables: [{ name: 'v', dimensionIds: [0, 1], attributes: [], type: 6, vsize: 8000, begin: 0 }],
  };
  m.variables[0]!.begin = encodeHeader(m).length;
  return m;
}

describe('scanNetcdf3', () => {
  it('reads one 64 KiB prefix of an 8 MB file with a small header', async () => {
    const header = encodeHeader(model('short'));
    const src = source(header, header.length + 1000 * 8000);
    const scan = await scanNetcdf3(src, undefined);
    expect(src.reads).toEqual([[0, 65536]]);
    expect(scan.layout.arrays[0]?.chunkCount).toBe(1000);
  });

  it('reads further only while a long header runs on', async () => {
    const header = encodeHeader(model('h'.repeat(200_000)));
    const src = source(header, header.length + 1000 * 8000);
    const scan = await scanNetcdf3(src, undefined);
    // Contiguous ranges, each starting where the last ended; at most twice the header in all.
    expect(src.reads[0]).toEqual([0, 65536]);
    src.reads.forEach(([offset], i) => i > 0 && expect(offset).toBe((src.reads[i - 1]?.[0] ?? 0) + (src.reads[i - 1]?.[1] ?? 0)));
    expect(src.reads.length).toBeLessThanOrEqual(4);
    expect(scan.bytesRead).toBeLessThanOrEqual(2 * header.length + 65536);
    expect(scan.header.attributes[0]?.value).toHaveLength(200_000);
  });
});
