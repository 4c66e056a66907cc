// The zstd implementation behind every zstd user (Zarr codec, Blosc blocks, Icechunk metadata).
// zstd-napi (native libzstd) is an optionalDependency compiled at install, so it may be missing;
// then a WASM build of libzstd (@bokuweb/zstd-wasm) does the same work, slower. Chosen once, on
// first use: FLOE_ZSTD=napi|fallback forces one, otherwise zstd-napi when it loads.
import { createRequire } from 'node:module';
import { floeError, type FloeError } from '../../errors.ts';
import { DecodedSizeLimitError } from './decoded-size.ts';
import { knownContentSize, ZstdDataError } from './zstd-frames.ts';
import type { ZstdBackend } from './zstd-types.ts';
import { napiBackend } from './zstd-napi.ts';
import { wasmBackend } from './zstd-wasm.ts';

export { ZstdDataError } from './zstd-frames.ts';
export { DecodedSizeLimitError } from './decoded-size.ts';

export type { ZstdBackend } from './zstd-types.ts';

export type ZstdBackendName = 'napi' | 'fallback';

export interface ZstdImplementation {
  /** 'zstd-napi', 'zstd-wasm', or 'unavailable' when FLOE_ZSTD forces a backend that cannot load. */
  name: ZstdBackend['name'] | 'unavailable';
  version: string;
  /** Why this one: forced by FLOE_ZSTD, zstd-napi loaded, or why it did not. */
  reason: string;
}

export const MIN_LEVEL = -131072; // ZSTD_minCLevel()
export const MAX_LEVEL = 22;

/** libzstd's level range; numcodecs writes levels such as 100, which mean the maximum. */
export function clampLevel(level: number): number {
  return Math.max(MIN_LEVEL, Math.min(MAX_LEVEL, level));
}

const require = createRequire(import.meta.url);
const loaded = new Map<ZstdBackendName, ZstdBackend>();

/** Loads one backend; throws when its package is missing or will not initialise. */
export function loadZstdBackend(which: ZstdBackendName): ZstdBackend {
  let backend = loaded.get(which);
  if (!backend) {
    backend = which === 'napi' ? napiBackend(require) : wasmBackend(require);
    loaded.set(which, backend);
  }
  return backend;
}

/** Whether zstd-napi loads here (tests skip native-only cases when not). */
export function napiAvailable(): boolean {
  try {
    loadZstdBackend('napi');
    return true;
  } catch {
    return false;
  }
}

let chosen: { backend: ZstdBackend | null; info: ZstdImplementation; error?: FloeError } | undefined;

function choose(): NonNullable<typeof chosen> {
  const forced = process.env['FLOE_ZSTD']?.trim().toLowerCase() || 'auto';
  if (forced !== 'auto' && forced !== 'napi' && forced !== 'fallback') {
    const error = floeError('INVALID_ARGUMENT', `FLOE_ZSTD must be napi, fallback or auto, got "${forced}"`);
    return { backend: null, info: { name: 'unavailable', version: '', reason: error.message }, error };
  }
  const attempt = (which: ZstdBackendName): ZstdBackend | Error => {
    try {
      return loadZstdBackend(which);
    } catch (err) {
      return err instanceof Error ? err : new Error(String(err));
    }
  };
  const order: ZstdBackendName[] = forced === 'auto' ? ['napi', 'fallback'] : [forced];
  const failures: string[] = [];
  for (const which of order) {
    const result = attempt(which);
    if (!(result instanceof Error)) {
      const reason =
        forced !== 'auto' ? `forced by FLOE_ZSTD=${forced}`
        : which === 'napi' ? 'zstd-napi (native libzstd) loaded'
        : `zstd-napi did not load (${failures[0]}); using the WASM fallback`;
      return { backend: result, info: { name: result.name, version: result.version, reason } };
    }
    failures.push(`${which === 'napi' ? 'zstd-napi' : '@bokuweb/zstd-wasm'}: ${result.message.split('\n')[0]}`);
  }
  const message = `no zstd implementation loads (${failures.join('; ')})${forced === 'napi' ? '; install zstd-napi (it needs a C compiler) or unset FLOE_ZSTD' : ''}`;
  const error = floeError('UNSUPPORTED', message);
  return { backend: null, info: { name: 'unavailable', version: '', reason: message }, error };
}

/** The backend in use; throws UNSUPPORTED (or INVALID_ARGUMENT for a bad FLOE_ZSTD) if none loads. */
export function zstdBackend(): ZstdBackend {
  chosen ??= choose();
  if (!chosen.backend) throw chosen.error!;
  return chosen.backend;
}

/**
 * Switches the backend for this thread (tests run every zstd path on both; FLOE_ZSTD does the
 * same for a whole process and its workers). 'auto' goes back to FLOE_ZSTD's or the default
 * choice. Throws when the requested backend does not load.
 */
export function selectZstdBackend(which: ZstdBackendName | 'auto'): ZstdImplementation {
  if (which === 'auto') {
    chosen = undefined;
    return zstdImplementation();
  }
  const backend = loadZstdBackend(which);
  chosen = { backend, info: { name: backend.name, version: backend.version, reason: `selected by selectZstdBackend('${which}')` } };
  return zstdImplementation();
}

/** Which zstd implementation Floe uses and why, for `floe doctor` and bug reports. Never throws. */
export function zstdImplementation(): ZstdImplementation {
  chosen ??= choose();
  return { ...chosen.info };
}

export interface ZstdDecodeOptions {
  /** Refuse output past this many bytes (a bomb guard); also bounds a claimed content size. */
  maxBytes: number;
  /** Undefined like absent: no dictionary (callers pass their own optional value through). */
  dictionary?: Uint8Array | undefined;
  /** Undefined like absent: the process-wide backend. */
  backend?: ZstdBackend | undefined;
}

// No zstd block expands more than this (a 4-byte RLE block yields at most 128 KiB): a larger
// claimed content size is a damaged header, refused before allocating for it, and output past
// it is a bomb, whatever maxBytes allows.
const MAX_RATIO = 32768;

/**
 * Decodes one or more whole frames. Sizes stated in frame headers are checked against maxBytes
 * before anything is allocated; frames without them are decoded streaming, stopping at maxBytes.
 * Throws ZstdDataError for bad input and DecodedSizeLimitError past maxBytes, whichever backend runs.
 */
export function zstdDecode(data: Uint8Array, options: ZstdDecodeOptions): Uint8Array {
  const backend = options.backend ?? zstdBackend();
  if (data.length === 0) throw new ZstdDataError('empty', 'the input is empty (no zstd frame)');
  const size = knownContentSize(data);
  if (size === null) {
    const limit = Math.min(options.maxBytes, data.length * MAX_RATIO);
    return wrapBackendError(() => backend.decompressUnsized(data, limit, options.dictionary));
  }
  if (size > data.length * MAX_RATIO) throw new ZstdDataError('corrupt', `a frame header claims ${size} bytes from ${data.length} encoded bytes`);
  if (size > options.maxBytes) throw new DecodedSizeLimitError(options.maxBytes, size);
  const out = new Uint8Array(size);
  const produced = wrapBackendError(() => backend.decompressInto(data, out, options.dictionary));
  if (produced !== size) throw new ZstdDataError('corrupt', `decoded ${produced} bytes, the frame headers say ${size}`);
  return out;
}

/** Turns a library's own error (bad data, checksum, dictionary) into ZstdDataError 'corrupt'; ours pass through. */
function wrapBackendError<T>(run: () => T): T {
  try {
    return run();
  } catch (err) {
    if (err instanceof ZstdDataError || err instanceof DecodedSizeLimitError) throw err;
    throw new ZstdDataError('corrupt', err instanceof Error ? err.message : String(err), { cause: err });
  }
}
