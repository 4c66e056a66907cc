// Where snappy.ts gets snappy-wasm under Node: its CommonJS build (which instantiates the
// WebAssembly module synchronously), required on the first snappy stream. The browser build takes
// snappy-host.browser.ts instead (the package's ES build, a chunk of its own).
import { requireOptional, unloadPackage } from '../../../optional-dependency.ts';

/** What Floe uses of snappy-wasm. */
export interface SnappyWasm {
  compress_raw(input: Uint8Array): Uint8Array;
  decompress_raw(input: Uint8Array): Uint8Array;
  readonly __wasm?: { readonly memory: { readonly buffer: ArrayBufferLike } };
}

const PACKAGE = 'snappy-wasm';

/** Nothing to fetch under Node: loadSnappy requires the package on the first snappy stream. */
export async function prepareSnappy(): Promise<void> {}

/** A loaded instance; MISSING_DEPENDENCY when the package is absent or will not instantiate. */
export function loadSnappy(): SnappyWasm {
  return requireOptional<SnappyWasm>(PACKAGE, 'blosc snappy streams');
}

/** Forgets the instance: the next loadSnappy instantiates a fresh one (new linear memory). */
export function unloadSnappy(): void {
  unloadPackage(PACKAGE);
}
