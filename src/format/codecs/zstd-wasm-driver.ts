// The zstd-wasm backend's driver (see zstd-wasm.ts): libzstd's raw exports over an Emscripten
// module and its .wasm bytes, with nothing from the host, so a browser build drives the same
// code. The host supplies the glue and the bytes (Node: zstd-wasm.ts reads them from the
// package; a browser: the package's web glue and a fetched or bundled zstd.wasm). Compiling with
// `new WebAssembly.Module` is synchronous; Chromium 156 allows it on the main thread for this
// 250 KB module (its limit is far larger), measured in issue 31.
import type { ZstdBackend } from './zstd-types.ts';
import { DecodedSizeLimitError } from './decoded-size.ts';
import { ZstdDataError, xxh64 } from './zstd-frames.ts';

// The project's lib settings (no DOM) leave WebAssembly undeclared; this is the part used here.
interface WasmInstance { exports: unknown }
interface WasmApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => WasmInstance;
}
const WasmApi = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;

export interface EmscriptenModule {
  calledRun?: boolean;
  HEAPU8: Uint8Array;
  instantiateWasm?: (imports: object, receive: (instance: WasmInstance) => unknown) => unknown;
  init(wasm?: Uint8Array): unknown;
  _malloc(size: number): number;
  _free(ptr: number): void;
  _ZSTD_compressBound(size: number): number;
  _ZSTD_createCCtx(): number;
  _ZSTD_createDCtx(): number;
  _ZSTD_compress_usingDict(cctx: number, dst: number, cap: number, src: number, size: number, dict: number, dictSize: number, level: number): number;
  _ZSTD_decompress_usingDict(dctx: number, dst: number, cap: number, src: number, size: number, dict: number, dictSize: number): number;
}

// ZSTD_ErrorCode values (zstd_errors.h, stable since v1.3): a wasm32 size_t error comes back as
// its negated code.
const ERROR_NAMES: Record<number, string> = {
  1: 'Error (generic)', 10: 'Unknown frame descriptor', 12: 'Version not supported',
  14: 'Unsupported frame parameter', 16: 'Frame requires too much memory for decoding',
  20: 'Data corruption detected', 22: 'Restored data doesn\'t match checksum',
  32: 'Dictionary mismatch', 34: 'Cannot create Dictionary from provided samples',
  64: 'Allocation error : not enough memory', 70: 'Destination buffer is too small',
  72: 'Src size is incorrect',
};
const DST_TOO_SMALL = 70;
const SRC_SIZE_WRONG = 72;
const MEMORY_ALLOCATION = 64;
/** wasm32 with a 2 GiB heap: input and output must both fit in it. */
const WASM_LIMIT = 2 ** 31 - 1;

class WasmError extends Error {
  constructor(readonly code: number) {
    super(ERROR_NAMES[code] ?? `zstd error ${code}`);
  }
}

/**
 * A backend over the Emscripten glue `m` (initialised here from `wasmBytes` unless it already ran)
 * and the package's `version`.
 */
export function wasmBackendOver(m: EmscriptenModule, wasmBytes: () => Uint8Array, version: string): ZstdBackend {
  if (!m.calledRun) {
    const wasm = new WasmApi.Module(wasmBytes());
    m.instantiateWasm = (imports, receive) => receive(new WasmApi.Instance(wasm, imports));
    m.init();
    if (!m.calledRun) throw new Error('@bokuweb/zstd-wasm did not initialise synchronously');
  }
  const cctx = m._ZSTD_createCCtx();
  const dctx = m._ZSTD_createDCtx();
  if (!cctx || !dctx) throw new Error('@bokuweb/zstd-wasm could not allocate its contexts');

  /** Copies `data` into the wasm heap for the length of `run`. */
  const withHeap = <T>(data: Uint8Array | undefined, run: (ptr: number) => T): T => {
    if (!data || data.length === 0) return run(0);
    const ptr = m._malloc(data.length);
    if (!ptr) throw new WasmError(MEMORY_ALLOCATION);
    try {
      m.HEAPU8.set(data, ptr); // HEAPU8 is re-read: memory growth replaces the view
      return run(ptr);
    } finally {
      m._free(ptr);
    }
  };
  const check = (result: number): number => {
    if (result < 0) throw new WasmError(-result);
    return result;
  };

  /** One decode attempt into `cap` bytes: the output, or null when it does not fit. */
  const decodeOnce = (src: number, size: number, dict: Uint8Array | undefined, dictPtr: number, cap: number, out?: Uint8Array): Uint8Array | number | null => {
    const dst = m._malloc(Math.max(cap, 1));
    if (!dst) throw new WasmError(MEMORY_ALLOCATION);
    try {
      const result = m._ZSTD_decompress_usingDict(dctx, dst, cap, src, size, dictPtr, dict?.length ?? 0);
      if (result === -DST_TOO_SMALL) return null;
      const produced = check(result);
      if (out) {
        out.set(m.HEAPU8.subarray(dst, dst + produced));
        return produced;
      }
      return m.HEAPU8.slice(dst, dst + produced);
    } finally {
      m._free(dst);
    }
  };

  return {
    name: 'zstd-wasm',
    version,
    compress(data, level, checksum, dictionary) {
      if (data.length > WASM_LIMIT / 2) throw new WasmError(MEMORY_ALLOCATION);
      return withHeap(data, (src) =>
        withHeap(dictionary, (dictPtr) => {
          const cap = m._ZSTD_compressBound(data.length);
          const dst = m._malloc(cap);
          if (!dst) throw new WasmError(MEMORY_ALLOCATION);
          try {
            const written = check(m._ZSTD_compress_usingDict(cctx, dst, cap, src, data.length, dictPtr, dictionary?.length ?? 0, level));
            if (!checksum) return m.HEAPU8.slice(dst, dst + written);
            const frame = new Uint8Array(written + 4);
            frame.set(m.HEAPU8.subarray(dst, dst + written));
            const view = new DataView(frame.buffer);
            view.setUint8(4, view.getUint8(4) | 0x04); // Content_Checksum_Flag in the frame header descriptor
            view.setUint32(written, Number(xxh64(data) & 0xffffffffn), true);
            return frame;
          } finally {
            m._free(dst);
          }
        }),
      );
    },
    decompressInto(data, out, dictionary) {
      return withHeap(data, (src) =>
        withHeap(dictionary, (dictPtr) => {
          const produced = decodeOnce(src, data.length, dictionary, dictPtr, out.length, out);
          if (produced === null) throw new WasmError(DST_TOO_SMALL);
          return produced as number;
        }),
      );
    },
    decompressUnsized(data, maxBytes, dictionary) {
      const limit = Math.min(maxBytes, WASM_LIMIT - data.length - (dictionary?.length ?? 0));
      return withHeap(data, (src) =>
        withHeap(dictionary, (dictPtr) => {
          // Each retry decodes from the start; growing x4 keeps the total work under 1.4x the last try.
          for (let cap = Math.min(Math.max(64 * 1024, data.length * 8), limit); ; cap = Math.min(cap * 4, limit)) {
            let result: Uint8Array | number | null;
            try {
              result = decodeOnce(src, data.length, dictionary, dictPtr, cap);
            } catch (err) {
              if (err instanceof WasmError && err.code === SRC_SIZE_WRONG) throw new ZstdDataError('truncated', 'the last zstd frame is truncated', { cause: err });
              throw err;
            }
            if (result !== null) return result as Uint8Array;
            if (cap >= limit) throw new DecodedSizeLimitError(limit);
          }
        }),
      );
    },
  };
}
