// How a v1 array maps onto Zarr v3 metadata for conversion. Values are identical: the v3 array
// has the same shape, chunks, memory type and chunk layout (transpose for F order, bytes with
// the v1 byte order, vlen-utf8 for U<n>). The compressor maps to a v3 codec that really decodes:
//   none  -> no codec                      chunks copied verbatim
//   blosc -> blosc (same cname/clevel/shuffle) chunks copied verbatim (both are Blosc1 frames)
//   zlib, gzip -> gzip at the same level    re-encoded: v1 "zlib" is an RFC 1950 zlib stream,
//                                           which a v3 gzip (RFC 1952) reader refuses
//   bz2, lzma  -> zstd level 3              re-encoded: Zarr v3 has no bz2/lzma codec that
//                                           other readers share
import type { BytesToBytesCodec, CodecMetadata } from '../codecs/types.ts';
import type { NumpyChunkCodec } from '../numpy/chunk-codec.ts';
import { bloscV3Form } from '../numpy/numcodecs.ts';
import type { ArrayMetadataInput, Attributes } from '../zarr/metadata.ts';
import type { V1Metadata } from './meta.ts';

/** Attribute recording the v1 dtype where the v3 type alone loses it (records, S<n>, V<n>). */
export const V1_DTYPE_ATTRIBUTE = 'floe.v1_dtype';

export interface V3Plan {
  readonly metadata: ArrayMetadataInput;
  /** True when stored v1 chunks are valid v3 chunks as they are. */
  readonly verbatim: boolean;
}

export function planV3Conversion(meta: V1Metadata, attributes: Attributes, chunkCodec: NumpyChunkCodec): V3Plan {
  const compression = v3Compression(meta, chunkCodec.outer[0]);
  const keepsDtype = meta.dtype.kind === 'structured' || meta.dtype.kind === 'bytes';
  return {
    metadata: {
      shape: meta.shape,
      chunkShape: meta.chunks,
      dataType: meta.dtype.dataType.name,
      fillValue: meta.fill.value.json,
      codecs: [...chunkCodec.v3Codecs, ...compression.codecs],
      attributes: keepsDtype ? { ...attributes, [V1_DTYPE_ATTRIBUTE]: meta.dtype.json } : attributes,
    },
    verbatim: compression.verbatim && !chunkCodec.transcodes,
  };
}

function v3Compression(meta: V1Metadata, compressor: BytesToBytesCodec | undefined): { codecs: CodecMetadata[]; verbatim: boolean } {
  if (!compressor) return { codecs: [], verbatim: true };
  switch (meta.compression) {
    case 'blosc':
      return { codecs: [bloscV3Form(compressor, meta.dtype.itemSize)], verbatim: true };
    case 'zlib':
    case 'gzip': {
      const level = compressor.toJSON().configuration?.level as number;
      return { codecs: [{ name: 'gzip', configuration: { level: level < 0 ? 6 : level } }], verbatim: false };
    }
    default:
      return { codecs: [{ name: 'zstd', configuration: { level: 3, checksum: false } }], verbatim: false };
  }
}
