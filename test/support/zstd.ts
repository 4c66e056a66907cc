// Runs zstd tests once per backend (zstd-napi when it loads here, node:zlib's zstd where this
// Node has it, and the WASM fallback everywhere), and
// builds frame shapes libzstd's one-shot API does not write: frames without a content size (as
// the Icechunk reference writes them) and hand-made raw-block frames.
import { afterAll, beforeAll, describe } from 'vitest';
import { backendAvailable, loadZstdBackend, selectZstdBackend, type ZstdBackend, type ZstdBackendName } from '../../src/format/codecs/zstd-backend.ts';
import { concat } from '../../src/format/codecs/sharding.ts';

export interface ZstdBackendCase {
  which: ZstdBackendName;
  available: boolean;
  /** The backend itself (null when it does not load here). */
  backend: ZstdBackend | null;
}

export const ZSTD_BACKENDS: ZstdBackendCase[] = (['napi', 'zlib', 'fallback'] as const).map((which) => {
  const available = which === 'fallback' || backendAvailable(which);
  return { which, available, backend: available ? loadZstdBackend(which) : null };
});

/** Every ordered pair of distinct backends that load here: [label, encoder, decoder]. */
export const ZSTD_PAIRS: [string, ZstdBackend, ZstdBackend][] = ZSTD_BACKENDS.flatMap((from) =>
  ZSTD_BACKENDS.filter((to) => to !== from && from.backend && to.backend).map((to): [string, ZstdBackend, ZstdBackend] => [`${from.which} -> ${to.which}`, from.backend!, to.backend!]),
);

/**
 * `describe` once per backend, with that backend selected for Floe's zstd users for the block's
 * duration; the block of a backend that does not load here (zstd-napi without its build, node:zlib
 * before Node 22.15) is skipped: the matrix's newer Node runs it.
 */
export function describeEachZstdBackend(title: string, body: (backend: ZstdBackend) => void): void {
  for (const c of ZSTD_BACKENDS) {
    describe.skipIf(!c.available)(`${title} [${c.which}]`, () => {
      beforeAll(() => {
        selectZstdBackend(c.which);
      });
      afterAll(() => {
        selectZstdBackend('auto');
      });
      body(c.backend ?? loadZstdBackend('fallback')); // the fallback stands in only for a skipped block
    });
  }
}

/**
 * The same frame with its content size left out of the header: the single-segment flag is
 * cleared and a window descriptor large enough for the content added, so the blocks stay valid.
 */
export function withoutContentSize(frame: Uint8Array, contentSize: number): Uint8Array {
  const descriptor = frame[4]!;
  const fcsFlag = descriptor >> 6;
  const singleSegment = (descriptor >> 5) & 1;
  const dictIdBytes = [0, 1, 2, 4][descriptor & 3]!;
  const fcsBytes = fcsFlag === 0 ? singleSegment : 1 << fcsFlag;
  const oldHeader = 5 + (singleSegment ? 0 : 1) + dictIdBytes + fcsBytes;
  let exponent = 0;
  while (2 ** (10 + exponent) < Math.max(contentSize, 1)) exponent++;
  const window = singleSegment ? exponent << 3 : frame[5]!;
  const header = [...frame.subarray(0, 4), descriptor & 0x07, window, ...frame.subarray(5 + (singleSegment ? 0 : 1), 5 + (singleSegment ? 0 : 1) + dictIdBytes)];
  const out = new Uint8Array(header.length + frame.length - oldHeader);
  out.set(header);
  out.set(frame.subarray(oldHeader), header.length);
  return out;
}

/** A frame of raw (stored) blocks, with or without a content size in its header. */
export function rawFrame(content: Uint8Array, options: { contentSize: boolean }): Uint8Array {
  const blockMax = 128 * 1024;
  const blocks = Math.max(1, Math.ceil(content.length / blockMax));
  const headerSize = options.contentSize ? 14 : 6;
  const out = new Uint8Array(headerSize + blocks * 3 + content.length);
  out.set([0x28, 0xb5, 0x2f, 0xfd, options.contentSize ? 0xc0 : 0x00, 0x58]); // FCS 8 bytes or none; window 2^21
  if (options.contentSize) for (let i = 0, v = content.length; i < 8; i++, v = Math.floor(v / 256)) out[6 + i] = v % 256;
  let at = headerSize;
  for (let b = 0; b < blocks; b++) {
    const part = content.subarray(b * blockMax, (b + 1) * blockMax);
    const header = part.length * 8 + (b === blocks - 1 ? 1 : 0); // block type 0 (raw)
    out.set([header & 0xff, (header >> 8) & 0xff, (header >> 16) & 0xff], at);
    out.set(part, at + 3);
    at += 3 + part.length;
  }
  return out;
}

/** Byte equality without vitest's element-by-element diffing, which crawls on megabytes. */
export function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return Buffer.from(a.buffer, a.byteOffset, a.length).equals(Buffer.from(b.buffer, b.byteOffset, b.length));
}

export function concatBytes(...parts: Uint8Array[]): Uint8Array {
  return concat(parts);
}

/** The largest block zstd allows (and an RLE block's most output): 128 KiB. */
const BLOCK_MAX = 128 * 1024;

/**
 * A decompression bomb: `blocks` RLE blocks of 128 KiB each (4 encoded bytes apiece), with or
 * without a content size in the header; `claim` overrides the stated size (a lying header).
 */
export function rleBombFrame(blocks: number, options: { contentSize: boolean; claim?: number; byte?: number }): Uint8Array {
  const headerSize = options.contentSize ? 14 : 6;
  const out = new Uint8Array(headerSize + blocks * 4);
  out.set([0x28, 0xb5, 0x2f, 0xfd, options.contentSize ? 0xc0 : 0x00, 0x58]); // FCS 8 bytes or none; window 2^21
  if (options.contentSize) {
    const view = new DataView(out.buffer);
    view.setBigUint64(6, BigInt(options.claim ?? blocks * BLOCK_MAX), true);
  }
  for (let b = 0; b < blocks; b++) {
    const header = BLOCK_MAX * 8 + (1 << 1) + (b === blocks - 1 ? 1 : 0); // block type 1 (RLE)
    out.set([header & 0xff, (header >> 8) & 0xff, (header >> 16) & 0xff, options.byte ?? 0], headerSize + b * 4);
  }
  return out;
}
