// The fallback backend: libzstd compiled to WebAssembly by @bokuweb/zstd-wasm, driven through
// its raw exports. The package's own init() is asynchronous; compiling the 250 KB module with
// `new WebAssembly.Module` through Emscripten's instantiateWasm hook is synchronous, which keeps
// every codec API synchronous with no top-level await.
//
// Its build exports one-shot ZSTD_decompress_usingDict but no streaming API and no checksum
// parameter, so: frames without a content size are decoded into a buffer that grows (x4, up to
// maxBytes) on dstSize_tooSmall, and a requested checksum is added to the finished frame here
// (descriptor bit 2 and XXH64's low 32 bits, as RFC 8878 §3.1.1 lays out).
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { ZstdBackend } from './zstd-types.ts';
import { wasmBackendOver, type EmscriptenModule } from './zstd-wasm-driver.ts';

/** The backend over the package's CommonJS glue and .wasm, found and read synchronously. */
export function wasmBackend(require: NodeJS.Require): ZstdBackend {
  // The package exports only its async entry point; its Emscripten glue and .wasm sit beside it.
  const dist = dirname(require.resolve('@bokuweb/zstd-wasm'));
  const glue = require(join(dist, 'zstd.js')) as { Module: EmscriptenModule };
  const version = (JSON.parse(readFileSync(join(dist, '../../package.json'), 'utf8')) as { version: string }).version;
  return wasmBackendOver(glue.Module, () => readFileSync(join(dist, 'zstd.wasm')), version);
}
