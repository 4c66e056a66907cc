// snappy-wasm's ES build (its wasm-bindgen web glue) with its .wasm inlined (esbuild's binary
// loader), for the browser build only: snappy-host.browser.ts imports it on first use, so it is a
// chunk of its own. Each `instantiate` makes a fresh instance (new linear memory), which is how
// snappy.ts drops one that grew or trapped.
import { compress_raw, decompress_raw, initSync } from 'snappy-wasm';
import snappyWasm from 'snappy-wasm/es/snappy_bg.wasm';
import type { SnappyWasm } from './snappy-host.ts';

let compiled: WebAssembly.Module | undefined;

/** A fresh instance of the bundled build. */
export function instantiate(): SnappyWasm {
  compiled ??= new WebAssembly.Module(snappyWasm as Uint8Array<ArrayBuffer>);
  const { memory } = initSync(compiled);
  return { compress_raw, decompress_raw, __wasm: { memory } };
}
