// The LZ4 block codec behind `numcodecs.lz4` and Blosc's lz4 streams. lz4-napi (lz4_flex, Rust,
// safe decoding; an optionalDependency whose binaries come as per-platform packages) when it
// loads, else Floe's own TypeScript (blosc/lz4.ts). Chosen once per thread, on first use:
// FLOE_LZ4=napi|js forces one. Why the package (bench/codec-libraries.ts, BENCHMARKS.md "Codec
// libraries vs hand-written"): on numcodecs' and c-blosc's streams it decodes 1.3-4x faster and
// compresses better (1.58 vs 1.15 on shuffled float32), with the same correctness and bounds.
//
// lz4-napi's only block API is numcodecs' own layout: a u32le decoded size, then the block. The
// library allocates the stated size and fails rather than write past it; callers check that size
// against their limit first, so a decode never allocates more than the caller allows.
import { floeError } from '../../errors.ts';
import { loadPackage } from '../../optional-dependency.ts';
import { lz4Compress, lz4Decompress } from './blosc/lz4.ts';

export type Lz4BackendName = 'napi' | 'js';

export interface Lz4Backend {
  readonly name: 'lz4-napi' | 'floe-js';
  /** Decodes one block into `dst`; the bytes written (callers compare them with dst.length), or -1 for a malformed block. */
  decodeBlock(block: Uint8Array, dst: Uint8Array): number;
  /** Decodes `framed` (u32le size = dst.length, then the block) into `dst`; bytes or -1. */
  decodeFramed(framed: Uint8Array, dst: Uint8Array): number;
  /** Decodes `framed` (u32le size, checked by the caller, then the block) into a new array; undefined when malformed. */
  decodeFramedNew(framed: Uint8Array, size: number): Uint8Array | undefined;
  /** Encodes into `dst`; the bytes written, or 0 when the block would not fit. */
  encodeBlock(src: Uint8Array, dst: Uint8Array): number;
  /** Encodes to numcodecs' layout: the u32le size, then one block. */
  encodeFramed(src: Uint8Array): Uint8Array;
}

/** The part of lz4-napi used here (its declarations are not a dependency of the build). */
interface Lz4Napi {
  compressSync(data: Buffer): Buffer;
  uncompressSync(data: Uint8Array): Buffer;
}

/** LZ4_compressBound: the most one block can take for `n` bytes. */
export const compressBound = (n: number): number => n + Math.floor(n / 255) + 16;

const jsBackend: Lz4Backend = {
  name: 'floe-js',
  decodeBlock: lz4Decompress,
  decodeFramed: (framed, dst) => lz4Decompress(framed.subarray(4), dst),
  decodeFramedNew(framed, size) {
    const out = new Uint8Array(size);
    return lz4Decompress(framed.subarray(4), out) === size ? out : undefined;
  },
  encodeBlock: (src, dst) => lz4Compress(src, dst, false),
  encodeFramed(src) {
    const out = new Uint8Array(4 + compressBound(src.length));
    new DataView(out.buffer).setUint32(0, src.length, true);
    const written = lz4Compress(src, out.subarray(4), false);
    // The bound always fits a block; 0 would mean the encoder broke its own contract.
    if (written === 0) throw floeError('CORRUPT_OBJECT', 'lz4: the encoder overran LZ4_compressBound');
    return out.slice(0, 4 + written);
  },
};

function napiBackend(lib: Lz4Napi): Lz4Backend {
  // Blosc's streams carry no size: they get one in a reused buffer before going to the library.
  let framing = Buffer.alloc(0);
  const decodeFramedNew = (framed: Uint8Array, size: number): Uint8Array | undefined => {
    try {
      const out = lib.uncompressSync(framed);
      return out.length === size ? out : undefined;
    } catch {
      return undefined; // lz4_flex refuses malformed blocks and blocks that overrun the stated size
    }
  };
  const decodeFramed = (framed: Uint8Array, dst: Uint8Array): number => {
    const out = decodeFramedNew(framed, dst.length);
    if (!out) return -1;
    dst.set(out);
    return out.length;
  };
  return {
    name: 'lz4-napi',
    decodeFramed,
    decodeFramedNew,
    decodeBlock(block, dst) {
      if (framing.length < block.length + 4) framing = Buffer.alloc(Math.max(block.length + 4, 2 * framing.length));
      framing.writeUInt32LE(dst.length, 0);
      framing.set(block, 4);
      return decodeFramed(framing.subarray(0, block.length + 4), dst);
    },
    encodeBlock(src, dst) {
      const framed = lib.compressSync(Buffer.from(src.buffer, src.byteOffset, src.byteLength));
      if (framed.length - 4 > dst.length) return 0;
      dst.set(framed.subarray(4));
      return framed.length - 4;
    },
    encodeFramed: (src) => lib.compressSync(Buffer.from(src.buffer, src.byteOffset, src.byteLength)),
  };
}

const loaded = new Map<Lz4BackendName, Lz4Backend>();

/** Loads one backend; throws when lz4-napi is missing or its binary does not load. */
export function loadLz4Backend(which: Lz4BackendName): Lz4Backend {
  let backend = loaded.get(which);
  if (!backend) {
    backend = which === 'js' ? jsBackend : napiBackend(loadPackage<Lz4Napi>('lz4-napi'));
    loaded.set(which, backend);
  }
  return backend;
}

/** Whether lz4-napi loads here (tests skip its cases where it does not). */
export function lz4NapiAvailable(): boolean {
  try {
    loadLz4Backend('napi');
    return true;
  } catch {
    return false;
  }
}

let chosen: Lz4Backend | undefined;
let chosenReason = '';

function choose(): Lz4Backend {
  const forced = process.env['FLOE_LZ4']?.trim().toLowerCase() || 'auto';
  if (forced === 'js') {
    chosenReason = 'forced by FLOE_LZ4=js';
    return loadLz4Backend('js');
  }
  if (forced === 'napi') {
    chosenReason = 'forced by FLOE_LZ4=napi';
    try {
      return loadLz4Backend('napi');
    } catch (err) {
      throw floeError('UNSUPPORTED', `FLOE_LZ4=napi but lz4-napi does not load (${String(err instanceof Error ? err.message : err).split('\n')[0]}); install lz4-napi or unset FLOE_LZ4`);
    }
  }
  if (forced !== 'auto') throw floeError('INVALID_ARGUMENT', `FLOE_LZ4 must be napi, js or auto, got "${forced}"`);
  try {
    const napi = loadLz4Backend('napi');
    chosenReason = 'lz4-napi (lz4_flex, native) loaded';
    return napi;
  } catch (err) {
    chosenReason = `lz4-napi did not load (${String(err instanceof Error ? err.message : err).split('\n')[0]}); using Floe's TypeScript LZ4`;
    return loadLz4Backend('js');
  }
}

/** The backend in use (chosen on first call). */
export function lz4Backend(): Lz4Backend {
  return (chosen ??= choose());
}

/** Switches the backend for this thread (tests run every LZ4 path on both); 'auto' re-chooses. */
export function selectLz4Backend(which: Lz4BackendName | 'auto'): void {
  chosen = which === 'auto' ? undefined : loadLz4Backend(which);
  chosenReason = which === 'auto' ? '' : `selected by selectLz4Backend('${which}')`;
}

/** Which LZ4 implementation Floe uses and why, for `floe doctor` and bug reports. */
export function lz4Implementation(): { name: string; reason: string } {
  try {
    return { name: lz4Backend().name, reason: chosenReason };
  } catch (err) {
    return { name: 'unavailable', reason: err instanceof Error ? err.message : String(err) };
  }
}
