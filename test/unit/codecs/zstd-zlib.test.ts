// The node:zlib zstd backend's own logic on any Node, through a stand-in for node:zlib built on
// the WASM backend that behaves as Node 22.15's does: it ignores the `dictionary` option (which
// came later), decodes only the first of several frames, and its zstd can be missing or not
// write the content size. The real node:zlib runs the shared backend tests on Node 22.15+.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { loadZstdBackend, zstdDecode, ZstdDataError } from '../../../src/format/codecs/zstd-backend.ts';
import { readFrame } from '../../../src/format/codecs/zstd-frames.ts';
import type { ZstdBackend } from '../../../src/format/codecs/zstd-types.ts';
import { zlibBackend } from '../../../src/format/codecs/zstd-zlib.ts';
import { concatBytes, rawFrame, sameBytes, withoutContentSize } from '../../support/zstd.ts';

const requireHere = createRequire(import.meta.url);
const wasm = loadZstdBackend('fallback');
const LEVEL = 100; // node:zlib's ZSTD_c_compressionLevel
const CHECKSUM = 201; // ZSTD_c_checksumFlag
const DICTIONARY = new Uint8Array(readFileSync(new URL('../icechunk/fixtures/locations.zdict', import.meta.url)));

interface Quirks {
  /** Honours `dictionary` (Node 24.6+); else ignores it, as Node 22.15 does. */
  dictionaries: boolean;
  /** Leaves the content size out of the frame (a zstd that ignores pledgedSrcSize). */
  unsized?: boolean;
  /** No zstd at all (Node 20). */
  missing?: boolean;
}

type Options = { params?: Record<number, number>; maxOutputLength?: number; dictionary?: Uint8Array };

/** A node:zlib module with Node 22.15's zstd habits, decoding with the WASM backend. */
function fakeZlib(quirks: Quirks): object {
  if (quirks.missing) return { constants: {} };
  return {
    constants: { ZSTD_c_compressionLevel: LEVEL, ZSTD_c_checksumFlag: CHECKSUM },
    zstdCompressSync(data: Uint8Array, options: Options = {}) {
      const dictionary = quirks.dictionaries ? options.dictionary : undefined;
      const frame = wasm.compress(data, options.params?.[LEVEL] ?? 3, options.params?.[CHECKSUM] === 1, dictionary);
      return quirks.unsized ? withoutContentSize(frame, data.length) : frame;
    },
    zstdDecompressSync(data: Uint8Array, options: Options = {}) {
      const first = data.subarray(0, readFrame(data).compressedSize); // the rest is silently dropped
      const dictionary = quirks.dictionaries ? options.dictionary : undefined;
      const out = wasm.decompressUnsized(first, Number.MAX_SAFE_INTEGER, dictionary);
      if (out.length > (options.maxOutputLength ?? Infinity)) throw Object.assign(new RangeError('Cannot create a Buffer larger than that'), { code: 'ERR_BUFFER_TOO_LARGE' });
      return out;
    },
  };
}

function backendOn(quirks: Quirks, helper: ZstdBackend = wasm) {
  let helped = 0;
  const fakeRequire = ((id: string) => (id === 'node:zlib' ? fakeZlib(quirks) : requireHere(id))) as NodeJS.Require;
  const backend = zlibBackend(fakeRequire, { dictionaryHelper: () => (helped++, helper) });
  return { backend, helped: () => helped };
}

const DATA = Uint8Array.from({ length: 300_000 }, (_, i) => (i * 7) % 251 < 40 ? 0 : (i >> 6) & 0xff);
const text = new TextEncoder().encode('s3://earthmover-sample-data/netcdf/oisst/avhrr-only-v2.19810101.nc');

describe('node:zlib backend on a Node 22.15-like zlib', () => {
  it('is refused when zlib has no zstd, or its frames leave out the content size', () => {
    expect(() => backendOn({ dictionaries: true, missing: true })).toThrow(/^node:zlib has no zstd in Node v/);
    expect(() => backendOn({ dictionaries: true, unsized: true })).toThrow('node:zlib zstd does not write the content size into the frame header');
  });

  it('finds out whether dictionaries work, and sends them to the helper when they do not', () => {
    const old = backendOn({ dictionaries: false });
    expect(old.backend.dictionaries).toBe('helper');
    const frame = old.backend.compress(text, 3, false, DICTIONARY);
    expect(old.helped()).toBe(1); // loaded once, on the first dictionary call
    expect(sameBytes(zstdDecode(frame, { maxBytes: 1000, dictionary: DICTIONARY, backend: wasm }), text)).toBe(true);
    expect(sameBytes(zstdDecode(frame, { maxBytes: 1000, dictionary: DICTIONARY, backend: old.backend }), text)).toBe(true);
    const fresh = backendOn({ dictionaries: true });
    expect(fresh.backend.dictionaries).toBe('node:zlib');
    expect(sameBytes(zstdDecode(fresh.backend.compress(text, 3, false, DICTIONARY), { maxBytes: 1000, dictionary: DICTIONARY, backend: wasm }), text)).toBe(true);
    expect(fresh.helped()).toBe(0);
  });

  it('decodes every frame of several (the stand-in, like Node 22, stops after the first)', () => {
    const { backend } = backendOn({ dictionaries: false });
    const a = DATA.subarray(0, 100_000);
    const skippable = Uint8Array.from([0x5a, 0x2a, 0x4d, 0x18, 2, 0, 0, 0, 9, 9]);
    const sized = concatBytes(wasm.compress(a, 1, true), skippable, rawFrame(DATA, { contentSize: true }));
    expect(sameBytes(zstdDecode(sized, { maxBytes: 1 << 20, backend }), concatBytes(a, DATA))).toBe(true);
    const unsized = concatBytes(withoutContentSize(wasm.compress(a, 1, false), a.length), wasm.compress(DATA, 3, false));
    expect(sameBytes(zstdDecode(unsized, { maxBytes: 1 << 20, backend }), concatBytes(a, DATA))).toBe(true);
  });

  it('refuses truncation, trailing bytes and output past the limit as the other backends do', () => {
    const { backend } = backendOn({ dictionaries: false });
    const frame = wasm.compress(DATA, 3, true);
    const unsized = withoutContentSize(frame, DATA.length);
    const outcome = (bad: Uint8Array, maxBytes = 1 << 20, using: ZstdBackend = backend): string => {
      try {
        return `decoded ${zstdDecode(bad, { maxBytes, backend: using }).length}`;
      } catch (err) {
        return err instanceof ZstdDataError ? err.kind : (err as Error).name;
      }
    };
    for (const bad of [unsized.subarray(0, unsized.length - 9), concatBytes(unsized, frame.subarray(0, 20)), concatBytes(frame, frame.subarray(0, 20))]) {
      expect(outcome(bad)).toBe(outcome(bad, 1 << 20, wasm));
      expect(outcome(bad)).not.toMatch(/^decoded/);
    }
    expect(outcome(unsized, DATA.length - 1)).toBe('DecodedSizeLimitError');
    expect(outcome(unsized, DATA.length)).toBe(`decoded ${DATA.length}`);
    expect(outcome(concatBytes(unsized, unsized), DATA.length * 2 - 1)).toBe('DecodedSizeLimitError');
  });
});
