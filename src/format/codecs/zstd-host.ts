// The zstd backends Node offers (zstd-backend.ts chooses among them): zstd-napi, node:zlib's zstd
// and the WASM build, each loaded synchronously through require. The browser build takes
// zstd-host.browser.ts instead (a sibling `X.browser.ts` replaces `X.ts` there).
import { createRequire } from 'node:module';
import type { ZstdBackend, ZstdBackendName } from './zstd-types.ts';
import { napiBackend } from './zstd-napi.ts';
import { wasmBackend } from './zstd-wasm.ts';
import { zlibBackend } from './zstd-zlib.ts';

const load = createRequire(import.meta.url);

/** Loads one backend; throws when its package is missing, will not initialise, or this Node has no zstd. */
export function loadHostZstdBackend(which: ZstdBackendName, dictionaryHelper: () => ZstdBackend): ZstdBackend {
  return which === 'napi' ? napiBackend(load) : which === 'zlib' ? zlibBackend(load, { dictionaryHelper }) : wasmBackend(load);
}
