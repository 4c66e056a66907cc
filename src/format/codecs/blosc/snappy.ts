// Snappy raw streams (no framing), as c-blosc stores them for cname snappy: a varint of the decoded
// length, then the elements. Coded by the snappy-wasm package (the snap crate built for WebAssembly;
// its encoder writes the same bytes as the C++ snappy inside c-blosc). Why a package and not Floe's
// own code: BENCHMARKS.md, "Codec libraries vs hand-written" (it decodes 3-4.5x faster).
//
// The package loads on the first snappy stream, never with Floe. Its decoder allocates whatever the
// stream's varint states, inside WebAssembly memory that never shrinks (a stated 4 GiB traps), so the
// varint is read here and must equal the size the caller expects, which the caller has already held
// to its limit, before the library sees the stream. An instance whose memory grew past
// RETAINED_MEMORY_LIMIT, or that trapped (its state is then unknown), is dropped: the next call loads
// a fresh one.
import { loadSnappy, unloadSnappy, type SnappyWasm } from './snappy-host.ts';
/** Linear memory kept between calls: ample for automatic Blosc block sizes (at most 1 MiB in compress.ts). */
export const RETAINED_MEMORY_LIMIT = 32 * 2 ** 20;

let instance: SnappyWasm | undefined;

/** The loaded instance; MISSING_DEPENDENCY when the package is absent or will not instantiate. */
function library(): SnappyWasm {
  return (instance ??= loadSnappy());
}

function dropInstance(): void {
  instance = undefined;
  unloadSnappy();
}

/** Bytes of linear memory the loaded instance holds; 0 when none is loaded. */
export function snappyRetainedMemory(): number {
  return instance?.__wasm?.memory.buffer.byteLength ?? 0;
}

/** Runs one library call; any failure gives `failure`, and an instance left in doubt or grown large is dropped. */
function call(run: (lib: SnappyWasm) => number, failure: number): number {
  const lib = library();
  try {
    return run(lib);
  } catch (err) {
    if (err instanceof Error && err.name === 'RuntimeError') dropInstance(); // a WebAssembly trap
    return failure; // the snap crate's errors name the fault; the caller reports where it was
  } finally {
    if (instance === lib && snappyRetainedMemory() > RETAINED_MEMORY_LIMIT) dropInstance();
  }
}

/** The decoded length a stream states (its leading varint, at most 32 bits), or -1 when malformed. */
export function snappyStatedLength(src: Uint8Array): number {
  let stated = 0;
  for (let i = 0; i < 5; i++) {
    const b = src[i];
    if (b === undefined) return -1;
    stated += (b & 127) * 2 ** (7 * i);
    if (b < 128) return stated <= 0xffffffff ? stated : -1;
  }
  return -1;
}

/** Decodes into `dst`, which must be exactly the stated length; returns bytes or -1. */
export function snappyDecompress(src: Uint8Array, dst: Uint8Array): number {
  if (snappyStatedLength(src) !== dst.length) return -1;
  return call((lib) => {
    const out = lib.decompress_raw(src);
    if (out.length !== dst.length) return -1;
    dst.set(out);
    return out.length;
  }, -1);
}

/** Encodes `src` into `dst`; returns bytes written, or 0 when it would not fit (Blosc then stores the stream raw). */
export function snappyCompress(src: Uint8Array, dst: Uint8Array): number {
  return call((lib) => {
    const out = lib.compress_raw(src);
    if (out.length > dst.length) return 0;
    dst.set(out);
    return out.length;
  }, 0);
}
