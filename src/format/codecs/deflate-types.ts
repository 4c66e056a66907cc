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
  /** Where the async decoders below come from, when the backend has them (deflate-stream.ts). */
  readonly streams?: 'DecompressionStream';
  /** gunzip off the calling thread's JS (the runtime's native stream); the same bytes and errors. */
  gunzipAsync?(data: Uint8Array, maxBytes?: number): Promise<Uint8Array>;
  /** unzip likewise. */
  unzipAsync?(data: Uint8Array, maxBytes?: number): Promise<Uint8Array>;
}

// Output past the caller's limit: the shared error of every bounded decoder.
export { DecodedSizeLimitError } from './decoded-size.ts';
