// A decoder's output would pass its limit (DecodeLimits.maxBytes). A plain Error, not a FloeError:
// the backends that throw it (deflate, zstd, lzma) do not know which codec they decode for, so
// the codec's decodingGuard (bytes-codec-support.ts) turns it into LIMIT_EXCEEDED naming the codec.

export class DecodedSizeLimitError extends Error {
  /**
   * `declared`: the decoded size the data states (a frame or container header), when it states
   * one; undefined when a streaming decoder stopped at the limit without knowing the total.
   */
  constructor(
    readonly maxBytes: number,
    readonly declared?: number,
  ) {
    super(
      declared === undefined
        ? `the decoded output passes the ${maxBytes}-byte limit (a decompression bomb?); refusing to decode it further`
        : `the data declares ${declared} decoded bytes, over the ${maxBytes}-byte limit; refusing to decode it`,
    );
    this.name = 'DecodedSizeLimitError';
  }
}
