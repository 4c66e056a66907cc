// zstd for metadata payloads and dictionary-compressed virtual locations. The implementation is
// the codec registry's zstd entry (codecs/zstd.ts); this old home re-exports it.
export { MAX_DECOMPRESSED_BYTES, zstdCompress, zstdDecompress } from '../codecs/zstd.ts';
