// The contract of a deflate-family backend, apart from deflate-backend.ts (which picks one) so
// that a backend (fflate-backend.ts) implements it without importing the module that picks it.

export interface DeflateBackend {
  readonly name: 'node:zlib' | 'fflate';
  /** One gzip member; level 0-9. */
  gzip(data: Uint8Array, level: number): Uint8Array;
  /**
   * Every member of a gzip stream, each checked against its CRC32 and size. With maxBytes, throws
   * DecodedSizeLimitError once the output passes it, having produced at most about 1 MiB more.
   */
  gunzip(data: Uint8Array, maxBytes?: number): Uint8Array;
  /** A zlib stream; level -1 (zlib's default, 6) to 9. */
  zlib(data: Uint8Array, level: number): Uint8Array;
  /** A zlib stream (Adler-32 checked) or, sniffed from its magic bytes, a gzip stream; maxBytes as for gunzip. */
  unzip(data: Uint8Array, maxBytes?: number): Uint8Array;
}

/**
 * Output passed the caller's limit. A plain Error, not a FloeError: the backend does not know which
 * codec name (gzip, zlib, or v1's gzip alias) it decodes for, so the codec's decodingGuard turns it
 * into CORRUPT_OBJECT naming the codec, with this message naming the limit.
 */
export class DecodedSizeLimitError extends Error {
  constructor(readonly maxBytes: number) {
    super(`the decoded output passes the ${maxBytes}-byte limit (a decompression bomb?); refusing to inflate it further`);
    this.name = 'DecodedSizeLimitError';
  }
}

