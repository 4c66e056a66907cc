// The zstd implementation behind every zstd user (Zarr codec, Blosc blocks, Icechunk metadata).
// Three backends, all libzstd: zstd-napi (native, an optionalDependency compiled at install, so
// it may be missing), Node's own node:zlib zstd (Node 22.15+, found by trying it at load), and a
// WASM build (@bokuweb/zstd-wasm), slower, which loads everywhere. Chosen once, on first use:
// FLOE_ZSTD=napi|zlib|fallback forces one, otherwise the first of DEFAULT_ORDER that loads
// (BENCHMARKS.md, "zstd backends", says why this order). Pool workers are told the choice.
import { floeError, type FloeError } from '../../errors.ts';
import { DecodedSizeLimitError } from './decoded-size.ts';
import { knownContentSize, ZstdDataError } from './zstd-frames.ts';
import type { ZstdBackend, ZstdBackendName } from './zstd-types.ts';
import { registerZstdChoice } from './zstd-choice.ts';
import { loadHostZstdBackend } from './zstd-host.ts';
import { hostEnv } from '../../platform/host.ts';

export { ZstdDataError } from './zstd-frames.ts';
export { DecodedSizeLimitError } from './decoded-size.ts';

export type { ZstdBackend, ZstdBackendName } from './zstd-types.ts';

/** Tried in this order when FLOE_ZSTD does not force one. */
export const DEFAULT_ORDER: readonly ZstdBackendName[] = ['napi', 'zlib', 'fallback'];

const PACKAGE: Record<ZstdBackendName, string> = { napi: 'zstd-napi', zlib: 'node:zlib', fallback: '@bokuweb/zstd-wasm' };

export interface ZstdImplementation {
  /** 'zstd-napi', 'node:zlib', 'zstd-wasm', or 'unavailable' when FLOE_ZSTD forces a backend that cannot load. */
  name: ZstdBackend['name'] | 'unavailable';
  version: string;
  /** Why this one: forced by FLOE_ZSTD, the first that loaded, or why the ones before it did not. */
  reason: string;
  /** Set when dictionaries go to another backend (a node:zlib without the `dictionary` option). */
  dictionaries?: string;
}

export const MIN_LEVEL = -131072; // ZSTD_minCLevel()
export const MAX_LEVEL = 22;

/** libzstd's level range; numcodecs writes levels such as 100, which mean the maximum. */
export function clampLevel(level: number): number {
  return Math.max(MIN_LEVEL, Math.min(MAX_LEVEL, level));
}

const loaded = new Map<ZstdBackendName, ZstdBackend>();

/** Loads one backend; throws when its package is missing, will not initialise, or this Node has no zstd. */
export function loadZstdBackend(which: ZstdBackendName): ZstdBackend {
  let backend = loaded.get(which);
  if (!backend) {
    backend = loadHostZstdBackend(which, dictionaryHelper);
    loaded.set(which, backend);
  }
  return backend;
}

/** What does dictionary work for a node:zlib without the option: the next backend that loads. */
function dictionaryHelper(): ZstdBackend {
  return napiAvailable() ? loadZstdBackend('napi') : loadZstdBackend('fallback');
}

/** Whether zstd-napi loads here (tests skip native-only cases when not). */
export function napiAvailable(): boolean {
  return backendAvailable('napi');
}

/** Whether a backend loads here (node:zlib: whether this Node's zlib has a working zstd). */
export function backendAvailable(which: ZstdBackendName): boolean {
  try {
    loadZstdBackend(which);
    return true;
  } catch {
    return false;
  }
}

type Choice = { which: ZstdBackendName | null; backend: ZstdBackend | null; info: ZstdImplementation; error?: FloeError };
let chosen: Choice | undefined;

function choose(): Choice {
  const forced = hostEnv('FLOE_ZSTD')?.trim().toLowerCase() || 'auto';
  if (forced !== 'auto' && !(DEFAULT_ORDER as readonly string[]).includes(forced)) {
    const error = floeError('INVALID_ARGUMENT', `FLOE_ZSTD must be napi, zlib, fallback or auto, got "${forced}"`);
    return { which: null, backend: null, info: { name: 'unavailable', version: '', reason: error.message }, error };
  }
  const order = forced === 'auto' ? DEFAULT_ORDER : [forced as ZstdBackendName];
  const failures: string[] = [];
  for (const which of order) {
    let backend: ZstdBackend;
    try {
      backend = loadZstdBackend(which);
    } catch (err) {
      failures.push(`${PACKAGE[which]}: ${(err instanceof Error ? err.message : String(err)).split('\n')[0]}`);
      continue;
    }
    const reason =
      forced !== 'auto' ? `forced by FLOE_ZSTD=${forced}`
      : failures.length === 0 ? `the first of ${DEFAULT_ORDER.map((w) => PACKAGE[w]).join(', ')} that loads`
      : `${failures.join('; ')}; using ${PACKAGE[which]}`;
    return { which, backend, info: describe(backend, reason) };
  }
  const hint = forced === 'napi' ? '; install zstd-napi (it needs a C compiler) or unset FLOE_ZSTD' : forced === 'zlib' ? '; node:zlib has zstd from Node 22.15; unset FLOE_ZSTD' : '';
  const message = `no zstd implementation loads (${failures.join('; ')})${hint}`;
  return { which: null, backend: null, info: { name: 'unavailable', version: '', reason: message }, error: floeError('UNSUPPORTED', message) };
}

function describe(backend: ZstdBackend, reason: string): ZstdImplementation {
  const info: ZstdImplementation = { name: backend.name, version: backend.version, reason };
  if ('dictionaries' in backend && backend.dictionaries === 'helper') info.dictionaries = 'this Node\'s zlib has no zstd dictionaries: they go to zstd-napi, or the WASM build without it';
  return info;
}

/** The backend in use; throws UNSUPPORTED (or INVALID_ARGUMENT for a bad FLOE_ZSTD) if none loads. */
export function zstdBackend(): ZstdBackend {
  chosen ??= choose();
  if (!chosen.backend) throw chosen.error!;
  return chosen.backend;
}

/**
 * Switches the backend for this thread (tests run every zstd path on each; FLOE_ZSTD does the
 * same for a whole process, and pool workers follow the thread that starts them). 'auto' goes
 * back to FLOE_ZSTD's or the default choice. Throws when the requested backend does not load.
 */
export function selectZstdBackend(which: ZstdBackendName | 'auto'): ZstdImplementation {
  if (which === 'auto') {
    chosen = undefined;
    return zstdImplementation();
  }
  const backend = loadZstdBackend(which);
  chosen = { which, backend, info: describe(backend, `selected by selectZstdBackend('${which}')`) };
  return zstdImplementation();
}

/** Which zstd implementation Floe uses and why, for `floe doctor` and bug reports. Never throws. */
export function zstdImplementation(): ZstdImplementation {
  chosen ??= choose();
  return { ...chosen.info };
}

// The backend a pool worker must use so that it writes and reads as this thread does: this
// thread's choice (made now if not yet), or undefined when none loads (the worker then fails the
// same way on its own).
registerZstdChoice(() => {
  chosen ??= choose();
  return chosen.which ?? undefined;
});

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
