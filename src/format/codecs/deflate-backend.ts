// Deflate-family streams (gzip, RFC 1952; zlib, RFC 1950) for the gzip and zlib codecs. node:zlib
// decodes ~2.6x faster than fflate on this machine, so it is used wherever the runtime has it;
// fflate (pure JS, fflate-backend.ts) takes over where it does not, and is loaded only then (92 KB
// of JS that every Node process and decode worker would otherwise parse). node:zlib is loaded through
// process.getBuiltinModule (Node >= 20.16), never a static import, so this module also loads in
// runtimes without it; older Node 20 releases therefore use fflate too.
import type * as NodeZlib from 'node:zlib';
import { DecodedSizeLimitError, type DeflateBackend } from './deflate-types.ts';
import type { DecompressionStreamClass } from './deflate-stream.ts';

// The contract lives in deflate-types.ts (so fflate-backend.ts need not import this module).
export type { DeflateBackend } from './deflate-types.ts';

/**
 * maxOutputLength must lie in [1, buffer.kMaxLength], and kMaxLength is platform-dependent
 * (2^30 - 1 on 32-bit builds, at least 2^32 elsewhere). Limits at or above the smallest of those
 * are left to Node's own buffer limit: no Buffer that size could be produced anyway on the
 * smallest platforms, and on larger ones the check after decoding still applies.
 */
const NODE_OPTION_CAP = 2 ** 30 - 1;

export function nodeZlibBackend(zlib: typeof NodeZlib): DeflateBackend {
  /**
   * Runs one sync inflate with maxOutputLength, so zlib stops at the limit (it checks after each
   * 16 KiB chunk of output) instead of materialising a bomb first.
   */
  const bounded = (inflate: (options: NodeZlib.ZlibOptions) => Uint8Array, maxBytes: number | undefined): Uint8Array => {
    if (maxBytes === undefined) return inflate({});
    // maxBytes 0 is not a valid option (minimum 1); the length check below covers it.
    const options = maxBytes < NODE_OPTION_CAP ? { maxOutputLength: Math.max(1, maxBytes) } : {};
    let out: Uint8Array;
    try {
      out = inflate(options);
    } catch (err) {
      if (err instanceof RangeError && (err as { code?: unknown }).code === 'ERR_BUFFER_TOO_LARGE') {
        throw new DecodedSizeLimitError(maxBytes);
      }
      throw err;
    }
    if (out.length > maxBytes) throw new DecodedSizeLimitError(maxBytes);
    return out;
  };
  return {
    name: 'node:zlib',
    gzip: (data, level) => zlib.gzipSync(data, { level }),
    gunzip: (data, maxBytes) => bounded((options) => zlib.gunzipSync(data, options), maxBytes),
    zlib: (data, level) => zlib.deflateSync(data, { level }),
    unzip: (data, maxBytes) => bounded((options) => zlib.unzipSync(data, options), maxBytes),
  };
}

type BuiltinLoader = (id: string) => unknown;

/** process.getBuiltinModule where the runtime has one; a loader that finds nothing elsewhere. */
function runtimeLoader(): BuiltinLoader {
  const proc = (globalThis as { process?: { getBuiltinModule?: BuiltinLoader } }).process;
  return proc?.getBuiltinModule ? (id) => proc.getBuiltinModule!(id) : () => undefined;
}

/**
 * node:zlib when `load` yields it, fflate otherwise (a loader that throws counts as "absent"),
 * fflate with async decoders on the runtime's DecompressionStream where there is one (browsers).
 */
export async function pickDeflateBackend(load: BuiltinLoader = runtimeLoader(), Stream: DecompressionStreamClass | null = runtimeStream()): Promise<DeflateBackend> {
  let zlib: unknown;
  try {
    zlib = load('node:zlib');
  } catch {
    zlib = undefined;
  }
  const usable = typeof zlib === 'object' && zlib !== null && typeof (zlib as typeof NodeZlib).gunzipSync === 'function';
  if (usable) return nodeZlibBackend(zlib as typeof NodeZlib);
  const { fflateBackend } = await import('./fflate-backend.ts');
  return Stream ? (await import('./deflate-stream.ts')).withDecompressionStream(fflateBackend, Stream) : fflateBackend;
}

/** The runtime's DecompressionStream, if any (a page may delete it to force fflate: bench/browser-gzip.ts). */
function runtimeStream(): DecompressionStreamClass | null {
  const Stream = (globalThis as { DecompressionStream?: DecompressionStreamClass }).DecompressionStream;
  return typeof Stream === 'function' ? Stream : null;
}

/** The backend the codecs use in this runtime (decided once, when this module loads). */
export const deflateBackend: DeflateBackend = await pickDeflateBackend();
