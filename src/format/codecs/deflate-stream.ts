// gzip and zlib decoding through the runtime's DecompressionStream (browsers: native code, 1.6-1.8x
// fflate's speed in Chromium), as the asynchronous decode of a deflate backend that has no
// node:zlib (deflate-backend.ts adds it to fflate's). The output is read piece by piece and the
// stream cancelled as soon as it passes maxBytes, so a bomb never gets to produce its full output.
// Chromium refuses a gzip stream of several members ("junk after end"), which the synchronous
// backend reads member by member: any stream failure but the size limit therefore reruns the
// synchronous decode, whose answer (the bytes, or its typed error) is the one given, so both
// paths read and refuse exactly the same inputs.
import { DecodedSizeLimitError, type DeflateBackend } from './deflate-types.ts';
import { concatBytes } from '../../platform/host.ts';

/** The constructor of the runtime's DecompressionStream (a parameter so tests can wrap it). */
export type DecompressionStreamClass = new (format: 'gzip' | 'deflate') => { readonly readable: ReadableStream<Uint8Array>; readonly writable: WritableStream<Uint8Array> };

/**
 * Streams of fewer bytes than this decode synchronously: a stream costs ~40 us to set up and
 * drain, more than fflate takes for them (Chromium 156: 1 KiB chunks gzipped to 555 B, 42 us
 * against 25 us each; 8 KiB gzipped to 4.3 KB, 79 us against 139 us).
 */
export const MIN_STREAM_BYTES = 2048;

/** `sync` with decodeAsync methods on `Stream`; its synchronous methods stay `sync`'s. */
export function withDecompressionStream(sync: DeflateBackend, Stream: DecompressionStreamClass, minStreamBytes = MIN_STREAM_BYTES): DeflateBackend {
  const run = (format: 'gzip' | 'deflate', data: Uint8Array, maxBytes: number | undefined, again: () => Uint8Array) =>
    data.length < minStreamBytes ? Promise.resolve().then(again) : inflate(Stream, format, data, maxBytes, again);
  const gunzipAsync = (data: Uint8Array, maxBytes?: number) => run('gzip', data, maxBytes, () => sync.gunzip(data, maxBytes));
  return {
    ...sync,
    streams: 'DecompressionStream',
    gunzipAsync,
    unzipAsync: (data, maxBytes) => (data[0] === 0x1f && data[1] === 0x8b ? gunzipAsync(data, maxBytes) : run('deflate', data, maxBytes, () => sync.unzip(data, maxBytes))),
  };
}

async function inflate(Stream: DecompressionStreamClass, format: 'gzip' | 'deflate', data: Uint8Array, maxBytes: number | undefined, again: () => Uint8Array): Promise<Uint8Array> {
  const stream = new Stream(format);
  const writer = stream.writable.getWriter();
  // Failures reach the reader too: these two would otherwise be unhandled rejections.
  writer.write(data).catch(() => undefined);
  writer.close().catch(() => undefined);
  const reader = stream.readable.getReader();
  const parts: Uint8Array[] = [];
  let produced = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      parts.push(value);
      produced += value.length;
      if (maxBytes !== undefined && produced > maxBytes) {
        reader.cancel().catch(() => undefined);
        throw new DecodedSizeLimitError(maxBytes);
      }
    }
  } catch (err) {
    if (err instanceof DecodedSizeLimitError) throw err;
    return again();
  }
  return concat(parts);
}

function concat(parts: readonly Uint8Array[]): Uint8Array {
  const only = parts.length === 1 ? parts[0]! : undefined;
  return only && only.byteOffset === 0 && only.byteLength === only.buffer.byteLength ? only : concatBytes(parts);
}
