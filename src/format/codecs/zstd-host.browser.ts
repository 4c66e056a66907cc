// zstd in the browser build (replaces zstd-host.ts there): libzstd's WASM build
// (@bokuweb/zstd-wasm's web glue) driven by zstd-wasm-driver.ts, the .wasm inlined in the bundle
// (esbuild's binary loader) so that it compiles synchronously on first use and every codec API
// stays synchronous. It reads dictionary-compressed frames (Icechunk's virtual chunk locations)
// as the native backends do. Inlined rather than fetched beside the bundle: one file to host, at
// +36 KB gzipped over a separate zstd.wasm (BENCHMARKS.md, "Issue 31").
import { Module } from '@bokuweb/zstd-wasm/dist/web/zstd.js';
import zstdWasm from '@bokuweb/zstd-wasm/dist/web/zstd.wasm';
import { floeError } from '../../errors.ts';
import type { ZstdBackend, ZstdBackendName } from './zstd-types.ts';
import { wasmBackendOver, type EmscriptenModule } from './zstd-wasm-driver.ts';

/** @bokuweb/zstd-wasm's version (package.json; kept in step by test/browser/bundle-size.test.ts). */
const VERSION = '0.0.27';

let backend: ZstdBackend | undefined;

/** The WASM build for 'fallback'; zstd-napi and node:zlib are Node's. */
export function loadHostZstdBackend(which: ZstdBackendName, _dictionaryHelper: () => ZstdBackend): ZstdBackend {
  if (which !== 'fallback') throw floeError('UNSUPPORTED', `the ${which} zstd backend is Node's; the browser build uses the WASM build`, { details: { reason: 'browser-build' } });
  backend ??= wasmBackendOver(Module as EmscriptenModule, () => zstdWasm, VERSION);
  return backend;
}
