// Deflate-family streams (gzip, RFC 1952; zlib, RFC 1950) for the gzip and zlib codecs. node:zlib
// decodes ~2.6x faster than fflate on this machine, so it is used wherever the runtime has it;
// fflate (pure JS, fflate-backend.ts) takes over where it does not. node:zlib is loaded through
// process.getBuiltinModule (Node >= 20.16), never a static import, so this module also loads in
// runtimes without it; older Node 20 releases therefore use fflate too.
import type * as NodeZlib from 'node:zlib';
import type { DeflateBackend } from './deflate-types.ts';
import { fflateBackend } from './fflate-backend.ts';

// The contract lives in deflate-types.ts (so fflate-backend.ts need not import this module).
export type { DeflateBackend } from './deflate-types.ts';

export function nodeZlibBackend(zlib: typeof NodeZlib): DeflateBackend {
  return {
    name: 'node:zlib',
    gzip: (data, level) => zlib.gzipSync(data, { level }),
    gunzip: (data) => zlib.gunzipSync(data),
    zlib: (data, level) => zlib.deflateSync(data, { level }),
    unzip: (data) => zlib.unzipSync(data),
  };
}

type BuiltinLoader = (id: string) => unknown;

/** process.getBuiltinModule where the runtime has one; a loader that finds nothing elsewhere. */
function runtimeLoader(): BuiltinLoader {
  const proc = (globalThis as { process?: { getBuiltinModule?: BuiltinLoader } }).process;
  return proc?.getBuiltinModule ? (id) => proc.getBuiltinModule!(id) : () => undefined;
}

/** node:zlib when `load` yields it, fflate otherwise (a loader that throws counts as "absent"). */
export function pickDeflateBackend(load: BuiltinLoader = runtimeLoader()): DeflateBackend {
  let zlib: unknown;
  try {
    zlib = load('node:zlib');
  } catch {
    zlib = undefined;
  }
  const usable = typeof zlib === 'object' && zlib !== null && typeof (zlib as typeof NodeZlib).gunzipSync === 'function';
  return usable ? nodeZlibBackend(zlib as typeof NodeZlib) : fflateBackend;
}

/** The backend the codecs use in this runtime. */
export const deflateBackend: DeflateBackend = pickDeflateBackend();
