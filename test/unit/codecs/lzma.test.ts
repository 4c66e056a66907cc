// The v1 lzma compressor's raw format (numcodecs LZMA format 3, Python's FORMAT_RAW): streams
// Python's lzma wrote read back, every filter chain Python accepts (delta filters, then LZMA1 or
// LZMA2) is written and read, and what cannot be written says why. LZMA1 with lc/lp/pb other
// than 3/0/2 (Floe's own encoder) is tested in lzma1-encoder.test.ts.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { isFloeError } from '../../../src/errors.ts';
import { allCodecImplementations, createZarrV1Compressor } from '../../../src/format/codecs/registry.ts';
import { parseV1Metadata, v1Compressor } from '../../../src/format/zarr-v1/meta.ts';

// These tests build codecs through the registry's synchronous lookups: load the lazy ones first.
await allCodecImplementations();

const DELTA = 3;
const LZMA1 = 0x4000000000000001; // arrives as 2^62 after JSON, like any double
const LZMA2 = 33;
const ctx = { itemSize: 1 };
type Filter = Readonly<Record<string, number | undefined>>;
const raw = (...filters: Filter[]) => createZarrV1Compressor('lzma', { format: 3, filters }, ctx);

/** What Python compressed below: bytes((i*37 + (i>>3)) & 255 for i in range(200)). */
const PATTERN = Uint8Array.from({ length: 200 }, (_, i) => (i * 37 + (i >> 3)) & 255);
/** Python: lzma.compress(PATTERN, format=FORMAT_RAW, filters=[{'id': FILTER_LZMA1}]). */
const LZMA1_GOLDEN = '00000a191f707977ac843fde4dc44f94af800012ecbfa94b3de867ad66af5c7abeac2532eca703f15e2ee0305d1e9958e9763fa1de04725f3e6ee1b76678507d7fa34996782c38b13912912b478b7c6eaab8ef08440acc30b43ed40e8b3741d3834f3ceda0ebad7ed0694e29eced22262393bed1ce1657cc210fdd219ffb28cead33cf6acfa58a0898b198bf01c8f59fe7dc815fd49a58d7f24629d2418579b1b8811ad51a04c4f5fbd9523879343f34197593fa1fd82cc1317001727fff2c36a000';
const sameBytes = (a: Uint8Array, b: Uint8Array): boolean => Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(b);

function errorOf(run: () => unknown): { code: string; message: string } | undefined {
  try {
    run();
  } catch (err) {
    return isFloeError(err) ? { code: err.code, message: err.message } : { code: 'non-Floe', message: String(err) };
  }
  return undefined;
}

describe('raw streams Python wrote (lzma.compress(data, format=FORMAT_RAW, filters=...))', () => {
  it.each([
    ['delta 2 + LZMA2 preset 1', [{ id: DELTA, dist: 2 }, { id: LZMA2, preset: 1 }], 'e000c7000c5d00000a1933766b9e9a5724e80000'],
    ['delta 1 + delta 3 + LZMA2', [{ id: DELTA, dist: 1 }, { id: DELTA, dist: 3 }, { id: LZMA2 }], 'e000c7000f5d00000a45225aeac806622b522aba000000'],
    ['delta 4 + LZMA1 lc 1 lp 1 pb 0', [{ id: DELTA, dist: 4 }, { id: LZMA1, lc: 1, lp: 1, pb: 0, dict_size: 4096 }], '000009948c775235acdc408c0d1c83ffffdbb70000'],
  ])('%s', (_label, filters, hex) => {
    expect([...raw(...filters).decode(Buffer.from(hex, 'hex'))]).toEqual([...PATTERN]);
  });
});

/** The payload of an LZMA2 stream made of stored chunks only (control 1 or 2, size-1 big-endian). */
function storedPayload(stream: Uint8Array): Uint8Array {
  const parts: number[] = [];
  let p = 0;
  while (stream[p] !== 0) {
    expect([1, 2]).toContain(stream[p]);
    const size = ((stream[p + 1]! << 8) | stream[p + 2]!) + 1;
    parts.push(...stream.subarray(p + 3, p + 3 + size));
    p += 3 + size;
  }
  expect(p).toBe(stream.length - 1);
  return Uint8Array.from(parts);
}

describe('writing raw streams', () => {
  const big = Uint8Array.from({ length: 300_000 }, (_, i) => (i * 2654435761) >>> 27);
  const inputs: readonly [string, Uint8Array][] = [['empty', new Uint8Array(0)], ['one byte', Uint8Array.of(9)], ['pattern', PATTERN], ['300 KB', big]];
  const chains: readonly [string, Filter[]][] = [
    ['LZMA2 preset 0 (256 KiB dictionary)', [{ id: LZMA2, preset: 0 }]],
    ['delta 4 + LZMA2', [{ id: DELTA, dist: 4 }, { id: LZMA2, preset: 1 }]],
    ['delta 1 + delta 256 + LZMA2 dict 4 KiB', [{ id: DELTA, dist: 1 }, { id: DELTA, dist: 256 }, { id: LZMA2, dict_size: 4096 }]],
    ['LZMA1', [{ id: LZMA1 }]],
    ['delta 2 + LZMA1 lc 3 lp 0 pb 2 dict 4 KiB', [{ id: DELTA, dist: 2 }, { id: LZMA1, lc: 3, lp: 0, pb: 2, dict_size: 4096 }]],
  ];
  it.each(chains.flatMap(([label, filters]) => inputs.map(([what, data]) => [label, what, filters, data] as const)))('%s round-trips %s', (_l, _w, filters, data) => {
    const codec = raw(...filters);
    expect(sameBytes(codec.decode(codec.encode(data)), data)).toBe(true);
  });

  it('delta + LZMA2 writes the delta-coded bytes as stored LZMA2 chunks', () => {
    const data = Uint8Array.from({ length: 70_000 }, (_, i) => (i * 7) & 255);
    const expected = Uint8Array.from(data, (b, i) => (i < 4 ? b : (b - data[i - 4]!) & 255));
    expect(sameBytes(storedPayload(raw({ id: DELTA, dist: 4 }, { id: LZMA2 }).encode(data)), expected)).toBe(true);
  });

  it('LZMA1 output needs no dictionary: 64 KiB repeated in a 1 MiB input reads back with a 4 KiB window', () => {
    const block = Uint8Array.from({ length: 65_536 }, (_, i) => (i * 2654435761) >>> 24);
    const data = new Uint8Array(1 << 20).map((_, i) => block[i % block.length]!);
    const codec = raw({ id: LZMA1, dict_size: 4096 });
    expect(sameBytes(codec.decode(codec.encode(data)), data)).toBe(true);
  });

  it('a reader with a smaller window than the writer used does fail (the check above can fail)', () => {
    // Python: random 4100-byte block twice, LZMA1 dict_size 8192; its matches reach back 4100 bytes.
    const far = readFileSync(new URL('./lzma1-far-matches.raw', import.meta.url));
    expect(raw({ id: LZMA1 }).decode(far).length).toBe(8200);
    expect(errorOf(() => raw({ id: LZMA1, dict_size: 4096 }).decode(far))?.code).toBe('CORRUPT_OBJECT');
  });
});

describe('LZMA1 filter ids in meta', () => {
  it('reads the id exactly as Python\'s json writes it (4611686018427387905, beyond doubles)', () => {
    const meta = parseV1Metadata(JSON.stringify({
      zarr_format: 1, shape: [200], chunks: [200], dtype: '|u1', fill_value: null, order: 'C', compression: 'lzma',
      compression_opts: { format: 3, check: -1, preset: null, filters: [{ id: 'LZMA1', dict_size: 4096 }] },
    }).replace('"LZMA1"', '4611686018427387905'));
    const codec = v1Compressor(meta)!;
    expect(sameBytes(codec.decode(Buffer.from(LZMA1_GOLDEN, 'hex')), PATTERN)).toBe(true);
  });

  it('refuses an id that is not an integer', () => {
    expect(errorOf(() => raw({ id: 1.5 }))?.code).toBe('INVALID_METADATA');
  });

  it('refuses 64-bit option values (bigints from the exact JSON parser) with INVALID_METADATA, not a TypeError', () => {
    const opts = (filter: Record<string, unknown>) => () => createZarrV1Compressor('lzma', { format: 3, filters: [filter] }, ctx);
    expect(errorOf(opts({ id: LZMA2, dict_size: 99999999999999999999n }))).toMatchObject({ code: 'INVALID_METADATA', message: expect.stringMatching(/dict_size.*100000000000000000000/) });
    expect(errorOf(opts({ id: 0x4000000000000002n }))?.code).toBe('INVALID_METADATA');
    expect(errorOf(() => createZarrV1Compressor('lzma', { format: 99999999999999999999n }, ctx))?.code).toBe('INVALID_METADATA');
  });
});

describe('what raw streams refuse', () => {
  it.each([
    ['no filters', [], 'INVALID_METADATA'],
    ['LZMA2 before delta', [{ id: LZMA2 }, { id: DELTA }], 'INVALID_METADATA'],
    ['a delta distance of 257', [{ id: DELTA, dist: 257 }, { id: LZMA2 }], 'INVALID_METADATA'],
    ['LZMA1 with pb 5', [{ id: LZMA1, pb: 5 }], 'INVALID_METADATA'],
    ['LZMA1 with lc + lp = 5', [{ id: LZMA1, lc: 3, lp: 2 }], 'INVALID_METADATA'],
    ['a BCJ x86 filter', [{ id: 4 }, { id: LZMA2 }], 'UNSUPPORTED'],
    ['a dictionary below 4 KiB', [{ id: LZMA2, dict_size: 1024 }], 'INVALID_METADATA'],
  ])('%s', (_label, filters, code) => {
    expect(errorOf(() => raw(...filters))?.code).toBe(code);
  });
});
