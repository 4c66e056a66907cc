// snappy-wasm in the browser build (replaces snappy-host.ts there): snappy-web.ts (the package's
// ES build and its .wasm) is a chunk of its own, fetched by prepareSnappy when a Blosc codec
// loads (registry.ts), so Blosc streams of other compressors do not wait for it and every codec
// API stays synchronous.
import { floeError } from '../../../errors.ts';
import type { SnappyWasm } from './snappy-host.ts';

export type { SnappyWasm } from './snappy-host.ts';

let web: typeof import('./snappy-web.ts') | undefined;

/** Fetches the snappy chunk (once). */
export async function prepareSnappy(): Promise<void> {
  web ??= await import('./snappy-web.ts');
}

/** A fresh instance; UNSUPPORTED when prepareSnappy has not run. */
export function loadSnappy(): SnappyWasm {
  if (web === undefined) throw floeError('UNSUPPORTED', 'blosc snappy streams: the snappy chunk was not loaded (prepareSnappy)', { details: { reason: 'browser-build' } });
  return web.instantiate();
}

/** Nothing to forget: the next loadSnappy instantiates afresh. */
export function unloadSnappy(): void {}
