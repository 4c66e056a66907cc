// How a Zarr v2 array maps onto Zarr v3 metadata for conversion. Values are identical: the same
// shape, chunks, memory type and chunk layout: transpose for F order, the filters' v3 codecs
// (numcodecs.delta, numcodecs.fixedscaleoffset, ...), bytes with the byte order of what the
// filters write (vlen-utf8 for U<n>, the object codec for object arrays: vlen-array as
// vlen-bytes, its element dtype in the attribute floe.vlen_array_dtype), and each compressor's v3 codec: gzip, zstd, blosc and crc32c as the core codecs,
// every other numcodecs compressor as `numcodecs.<id>` (numpy/numcodecs.ts), as zarr-python 3
// names them. Chunks are copied verbatim when the v3 chain reads them as stored; U<n> chunks are
// re-encoded (UCS-4 -> vlen-utf8).
import { floeError } from '../../errors.ts';
import type { CodecMetadata } from '../codecs/types.ts';
import type { NumpyChunkCodec } from '../numpy/chunk-codec.ts';
import type { NumpyDataType } from '../numpy/dtype.ts';
import { VLEN_ARRAY_DTYPE_ATTRIBUTE } from '../numpy/vlen-array.ts';
import type { ArrayMetadataInput, Attributes } from '../zarr/metadata.ts';
import { xarrayDimensionNames, type V2ArrayMetadata } from './metadata.ts';
import { v2FillIsMissing } from '../cf/values.ts';

/** Attribute recording the v2 dtype where the v3 type alone loses it (bytes, records, datetimes). */
export const V2_DTYPE_ATTRIBUTE = 'floe.v2_dtype';

export interface V2ToV3Plan {
  readonly metadata: ArrayMetadataInput;
  /** True when stored v2 chunks are valid v3 chunks as they are. */
  readonly verbatim: boolean;
}

export function planV2ToV3(meta: V2ArrayMetadata, attributes: Attributes, chunkCodec: NumpyChunkCodec, where: string): V2ToV3Plan {
  const missing = chunkCodec.compressors.filter((c) => c.v3 === undefined).map((c) => c.codec.name);
  if (missing.length > 0) {
    throw floeError('UNSUPPORTED', `cannot convert to Zarr v3: ${missing.map((n) => `"${n}"`).join(', ')} has no Zarr v3 codec Floe writes`, { where });
  }
  const inChain = new Set(chunkCodec.v3Codecs);
  const outerV3 = chunkCodec.compressors.map((c) => c.v3).filter((c): c is CodecMetadata => c !== undefined && !inChain.has(c));
  const metadata: ArrayMetadataInput = {
    shape: meta.shape,
    chunkShape: meta.chunks,
    dataType: meta.dtype.dataType.name,
    fillValue: meta.fill.value.json,
    codecs: [...chunkCodec.v3Codecs, ...outerV3],
    attributes: { ...attributes, ...keptDtype(meta.dtype), ...cfFillValue(meta, attributes) },
  };
  const names = xarrayDimensionNames(attributes, meta.shape.length);
  return { metadata: names ? { ...metadata, dimensionNames: names } : metadata, verbatim: chunkCodec.passThrough };
}

/**
 * A v2 fill value that CF decoding takes as `_FillValue` (xarray writes it there) becomes that
 * attribute of the v3 array, whose `fill_value` CF decoding never reads (docs/cf.md), so the
 * converted array decodes to the same values. NaN fills change nothing and are left out.
 */
function cfFillValue(meta: V2ArrayMetadata, attributes: Attributes): Attributes {
  if (meta.fill.isNull || meta.dtype.kind === 'datetime' || meta.dtype.dataType.lanes !== 1 || !/^(u?int|float)\d+$/.test(meta.dtype.dataType.name)) return {};
  const fill = meta.fill.value.memory[0];
  if (typeof fill !== 'number' && typeof fill !== 'bigint') return {};
  if (typeof fill === 'number' && !Number.isFinite(fill)) return {};
  return v2FillIsMissing(attributes, fill) ? { _FillValue: fill } : {};
}

/** What the v3 type alone would lose of the v2 dtype, as attributes (v3 readers ignore them). */
function keptDtype(dtype: NumpyDataType): Attributes {
  if (dtype.kind === 'bytes' || dtype.kind === 'structured' || dtype.kind === 'datetime') return { [V2_DTYPE_ATTRIBUTE]: dtype.json };
  // vlen-array's frames are vlen-bytes' own: the v3 array is `binary`, each element's dtype kept here.
  if (dtype.kind === 'object' && dtype.objectCodec === 'vlen-array') return { [VLEN_ARRAY_DTYPE_ATTRIBUTE]: dtype.objectConfig.dtype ?? null };
  return {};
}
