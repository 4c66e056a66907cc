// What a zstd implementation offers Floe; zstd-napi.ts, zstd-zlib.ts and zstd-wasm.ts implement it and
// zstd-backend.ts chooses one. Its own module so the implementations need not import the chooser.

export interface ZstdBackend {
  readonly name: 'zstd-napi' | 'node:zlib' | 'zstd-wasm';
  /** The npm package's version (node:zlib: Node's and its libzstd's). */
  readonly version: string;
  /** One frame stating its content size. `level` is already clamped; 0 is libzstd's default. */
  compress(data: Uint8Array, level: number, checksum: boolean, dictionary?: Uint8Array): Uint8Array;
  /**
   * The same frame as `compress` (no dictionary), written into `out`; returns its length, or -1
   * when `out` is shorter than the worst case for `data`. Absent where the backend cannot.
   */
  compressInto?(data: Uint8Array, out: Uint8Array, level: number, checksum: boolean): number;
  /** Decodes all frames into `out`, returning the bytes written; throws when they do not fit. */
  decompressInto(data: Uint8Array, out: Uint8Array, dictionary?: Uint8Array): number;
  /**
   * Decodes frames whose headers may leave out the content size, streaming: throws
   * DecodedSizeLimitError once the output passes maxBytes (having allocated about maxBytes at
   * most) and ZstdDataError 'truncated' when the last frame does not end.
   */
  decompressUnsized(data: Uint8Array, maxBytes: number, dictionary?: Uint8Array): Uint8Array;
}

/** FLOE_ZSTD's names for the backends. */
export type ZstdBackendName = 'napi' | 'zlib' | 'fallback';
