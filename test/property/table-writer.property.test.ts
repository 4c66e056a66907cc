// The manifest encoder writes through TableWriter (src/format/icechunk/table-writer.ts), which
// must lay out the same bytes as the flatbuffers runtime's Builder: alignment padding, vtables
// shared with the first identical one, field order, buffer growth. Checked on random manifests
// against test/support/builder-manifest.ts, which uses the runtime itself.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ChunkRef } from '../../src/format/icechunk/chunk-ref.ts';
import { asChunkId, asManifestId, asNodeId, compareIds } from '../../src/format/icechunk/ids.ts';
import { compareChunkIndices, decodeManifest, type Manifest } from '../../src/format/icechunk/manifest.ts';
import { encodeManifest, encodeManifestPayload } from '../../src/format/icechunk/manifest-encode.ts';
import { builderManifestPayload } from '../support/builder-manifest.ts';

const RUNS = Number(process.env.FLOE_TABLE_WRITER_RUNS ?? 300);

const bytes = (max: number) => fc.uint8Array({ maxLength: max });
const extra = fc.option(bytes(6), { nil: undefined });
/** Zero, small and wide values: zero fields are left out, which changes the table's shape. */
const u53 = fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 300 }), fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }));
const index = fc.array(fc.oneof(fc.integer({ min: 0, max: 40 }), fc.integer({ min: 0, max: 0xffffffff })), { maxLength: 4 });
const withExtra = <T extends object>(value: T, e: Uint8Array | undefined): T => (e === undefined ? value : { ...value, extra: e });

const chunkRef: fc.Arbitrary<ChunkRef> = fc.tuple(
  fc.oneof(
    { weight: 6, arbitrary: fc.record({ kind: fc.constant('native' as const), index, chunkId: fc.uint8Array({ minLength: 12, maxLength: 12 }).map(asChunkId), offset: u53, length: u53 }) },
    // Up to 100 bytes: more than the writer's first guess per ref, so its buffer grows.
    { weight: 2, arbitrary: fc.record({ kind: fc.constant('inline' as const), index, data: bytes(100) }) },
    {
      weight: 1,
      arbitrary: fc.record({
        kind: fc.constant('virtual' as const),
        index,
        location: fc.oneof(fc.webUrl(), fc.string({ unit: 'grapheme', maxLength: 8 })),
        offset: u53,
        length: u53,
        checksum: fc.oneof(fc.constant(null), fc.record({ etag: fc.string({ maxLength: 9 }) }), fc.record({ lastModified: fc.integer({ min: 0, max: 0xffffffff }) })),
      }),
    },
  ),
  extra,
).map(([ref, e]) => withExtra<ChunkRef>(ref, e));

const uniqueSorted = (refs: ChunkRef[]) =>
  [...new Map(refs.map((r) => [r.index.join(','), r])).values()].sort((a, b) => compareChunkIndices(a.index, b.index));

const manifest: fc.Arbitrary<Manifest> = fc
  .tuple(
    fc.constantFrom(1 as const, 2 as const),
    fc.uint8Array({ minLength: 12, maxLength: 12 }).map(asManifestId),
    fc.array(fc.tuple(fc.uint8Array({ minLength: 8, maxLength: 8 }).map(asNodeId), fc.array(chunkRef, { maxLength: 120 }), extra), { maxLength: 3 }),
    extra,
  )
  .map(([specVersion, id, arrays, e]) =>
    withExtra<Manifest>(
      {
        specVersion,
        id,
        arrays: [...new Map(arrays.map(([nodeId, refs, ae]) => [Buffer.from(nodeId).toString('hex'), withExtra({ nodeId, refs: uniqueSorted(refs) }, ae)])).values()].sort((x, y) =>
          compareIds(x.nodeId, y.nodeId),
        ),
      },
      e,
    ),
  );

describe('manifest payloads through TableWriter', () => {
  it('are byte-identical to the flatbuffers runtime Builder on random manifests', () => {
    fc.assert(
      fc.property(manifest, (m) => {
        expect(Buffer.from(encodeManifestPayload(m)).equals(Buffer.from(builderManifestPayload(m)))).toBe(true);
      }),
      { numRuns: RUNS },
    );
  });

  it('sort refs given out of order first', () => {
    fc.assert(
      fc.property(manifest, fc.nat(), (m, seed) => {
        const shuffled = { ...m, arrays: m.arrays.map((a) => ({ ...a, refs: a.refs.map((r, i) => ({ r, k: (i * 7919 + seed) % 101 })).sort((x, y) => x.k - y.k).map((x) => x.r) })) };
        expect(Buffer.from(encodeManifestPayload(shuffled)).equals(Buffer.from(builderManifestPayload(m)))).toBe(true);
      }),
      { numRuns: RUNS },
    );
  });

  it('are byte-identical when the buffer grows many times over its first guess', () => {
    const refs: ChunkRef[] = Array.from({ length: 50 }, (_, i) => ({ kind: 'inline', index: [i], data: new Uint8Array(1000 + i).fill(i) }));
    const m: Manifest = { specVersion: 2, id: asManifestId(new Uint8Array(12).fill(3)), arrays: [{ nodeId: asNodeId(new Uint8Array(8).fill(2)), refs }] };
    const payload = encodeManifestPayload(m);
    expect(payload.length).toBeGreaterThan(50_000);
    expect(Buffer.from(payload).equals(Buffer.from(builderManifestPayload(m)))).toBe(true);
  });

  it('are byte-identical on a large manifest of native refs, zero offsets among them', () => {
    const refs: ChunkRef[] = Array.from({ length: 20_000 }, (_, i) => ({
      kind: 'native',
      index: [Math.floor(i / 150), i % 150],
      chunkId: asChunkId(Uint8Array.from({ length: 12 }, (_, k) => (i * 31 + k * 7) & 0xff)),
      offset: i % 3 === 0 ? 0 : i * 1000,
      length: 3000 + (i % 2000),
    }));
    const m: Manifest = { specVersion: 2, id: asManifestId(new Uint8Array(12).fill(7)), arrays: [{ nodeId: asNodeId(new Uint8Array(8).fill(1)), refs }] };
    const payload = encodeManifestPayload(m);
    expect(Buffer.from(payload).equals(Buffer.from(builderManifestPayload(m)))).toBe(true);
    const decoded = decodeManifest(encodeManifest(m));
    expect(decoded.arrays[0]?.refs).toEqual(refs);
  });
});
