// Round trips of every Icechunk file type with random contents, and corrupt input that always
// ends in a typed error (CORRUPT_OBJECT or UNSUPPORTED), never a crash, a hang or another error.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isFloeError } from '../../src/errors.ts';
import { asChunkId, asManifestId, asNodeId, asSnapshotId, compareIds } from '../../src/format/icechunk/ids.ts';
import { chunkRefCount, compareChunkIndices, decodeManifest, encodeManifest, findChunkRef, type ChunkRef, type Manifest } from '../../src/format/icechunk/manifest.ts';
import { decodeFlexValue } from '../../src/format/icechunk/flexbuffers-reader.ts';
import type { FlexValue } from '../../src/format/icechunk/flexbuffers-types.ts';
import { encodeFlexValue } from '../../src/format/icechunk/flexbuffers-writer.ts';
import type { MetadataValue } from '../../src/format/icechunk/metadata-value.ts';
import { compareUtf8 } from '../../src/format/icechunk/metadata-value.ts';
import { compareNodePaths } from '../../src/format/icechunk/node-path.ts';
import { decodeRepoInfo, encodeRepoInfo, type RepoInfo } from '../../src/format/icechunk/repo-info.ts';
import type { RepoUpdate } from '../../src/format/icechunk/repo-updates.ts';
import { decodeSnapshot, encodeSnapshot, type NodeSnapshot, type Snapshot } from '../../src/format/icechunk/snapshot.ts';
import { decodeTransactionLog, encodeTransactionLog, type TransactionLog } from '../../src/format/icechunk/transaction-log.ts';

const id12 = fc.uint8Array({ minLength: 12, maxLength: 12 });
const id8 = fc.uint8Array({ minLength: 8, maxLength: 8 }).map(asNodeId);
const snapId = id12.map(asSnapshotId);
const u32 = fc.integer({ min: 0, max: 0xffffffff });
const u53 = fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER });
const text = fc.string({ unit: 'grapheme', maxLength: 12 });
const spec = fc.constantFrom(1 as const, 2 as const);
const segment = fc.string({ unit: 'grapheme', minLength: 1, maxLength: 6 }).filter((s) => !s.includes('/') && s !== '.' && s !== '..');
const nodePath = fc.array(segment, { maxLength: 6 }).map((s) => '/' + s.join('/'));
const uniqueBy = <T>(items: T[], key: (t: T) => string) => [...new Map(items.map((i) => [key(i), i])).values()];
const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

const safeKey = text.filter((k) => !k.includes('\0') && k !== '__proto__');
/** 64-bit integers that a JS number cannot hold exactly (they decode as bigint). */
const wideInt = fc.bigInt({ min: -(2n ** 63n), max: 2n ** 64n - 1n }).filter((n) => n > BigInt(Number.MAX_SAFE_INTEGER) || n < BigInt(Number.MIN_SAFE_INTEGER));
const metadataValue: fc.Arbitrary<MetadataValue> = fc.letrec<{ v: MetadataValue }>((tie) => ({
  v: fc.oneof(
    { depthSize: 'small' },
    fc.constant(null),
    fc.boolean(),
    fc.maxSafeInteger(),
    wideInt,
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    text,
    fc.array(tie('v'), { maxLength: 4 }),
    fc.dictionary(safeKey, tie('v'), { maxKeys: 4 }),
  ),
})).v;
const metadata = fc.array(fc.record({ name: text, value: metadataValue }), { maxLength: 3 }).map((items) =>
  uniqueBy(items, (i) => i.name).sort((a, b) => compareUtf8(a.name, b.name)),
);

const dims = (specVersion: 1 | 2) =>
  fc.array(
    specVersion === 2
      ? fc.record({ arrayLength: u53, numChunks: u32 })
      : fc.record({ arrayLength: fc.integer({ min: 0, max: 1e12 }), chunk: fc.integer({ min: 1, max: 1e6 }) }).map(({ arrayLength, chunk }) => ({
          arrayLength,
          numChunks: Math.ceil(arrayLength / chunk),
        })),
    { maxLength: 4 },
  );

const node = (specVersion: 1 | 2): fc.Arbitrary<NodeSnapshot> =>
  fc.record({
    id: id8,
    path: nodePath,
    userData: fc.uint8Array({ maxLength: 40 }),
    nodeData: fc.oneof(
      fc.constant({ kind: 'group' as const }),
      fc.record({
        kind: fc.constant('array' as const),
        shape: dims(specVersion),
        dimensionNames: fc.option(fc.array(fc.option(text), { maxLength: 3 })),
        manifests: fc.array(fc.record({ objectId: id12.map(asManifestId), extents: fc.array(fc.record({ from: u32, to: u32 }), { maxLength: 3 }) }), { maxLength: 2 }),
      }),
    ),
    extra: fc.option(fc.uint8Array({ maxLength: 4 })),
  });

const snapshot: fc.Arbitrary<Snapshot> = spec.chain((specVersion) =>
  fc.record({
    specVersion: fc.constant(specVersion),
    id: snapId,
    parentId: specVersion === 1 ? fc.option(snapId) : fc.constant(null),
    flushedAt: u53,
    message: fc.string({ maxLength: 30 }),
    metadata,
    manifestFiles: fc.array(fc.record({ id: id12.map(asManifestId), sizeBytes: u53, numChunkRefs: u32 }), { maxLength: 3 }).map((f) => uniqueBy(f, (x) => hex(x.id)).sort((a, b) => compareIds(a.id, b.id))),
    nodes: fc.array(node(specVersion), { maxLength: 5 }).map((n) => uniqueBy(n, (x) => x.path).sort((a, b) => compareNodePaths(a.path, b.path))),
    extra: fc.option(fc.uint8Array({ maxLength: 4 })),
  }),
);

const index = fc.array(u32, { maxLength: 4 });
const chunkRef: fc.Arbitrary<ChunkRef> = fc.oneof(
  fc.record({ kind: fc.constant('native' as const), index, chunkId: id12.map(asChunkId), offset: u53, length: u53 }),
  fc.record({ kind: fc.constant('inline' as const), index, data: fc.uint8Array({ maxLength: 20 }) }),
  fc.record({
    kind: fc.constant('virtual' as const),
    index,
    location: fc.webUrl(),
    offset: u53,
    length: u53,
    checksum: fc.oneof(fc.constant(null), fc.record({ etag: text }), fc.record({ lastModified: fc.integer({ min: 1, max: 0xffffffff }) })),
  }),
);
const manifest: fc.Arbitrary<Manifest> = fc.record({
  specVersion: spec,
  id: id12.map(asManifestId),
  arrays: fc
    .array(fc.record({ nodeId: id8, refs: fc.array(chunkRef, { maxLength: 6 }).map((r) => uniqueBy(r, (x) => x.index.join(',')).sort((a, b) => compareChunkIndices(a.index, b.index))) }), { maxLength: 3 })
    .map((a) => uniqueBy(a, (x) => hex(x.nodeId)).sort((x, y) => compareIds(x.nodeId, y.nodeId))),
});

const sortedIds = fc.array(id8, { maxLength: 4 }).map((ids) => uniqueBy(ids, hex).sort(compareIds));
const transactionLog: fc.Arbitrary<TransactionLog> = spec.chain((specVersion) =>
  fc.record({
    specVersion: fc.constant(specVersion),
    id: snapId,
    newGroups: sortedIds, newArrays: sortedIds, deletedGroups: sortedIds, deletedArrays: sortedIds, updatedArrays: sortedIds, updatedGroups: sortedIds,
    updatedChunks: fc
      .array(fc.record({ nodeId: id8, chunks: fc.array(index, { maxLength: 4 }).map((c) => uniqueBy(c, (x) => x.join(',')).sort(compareChunkIndices)) }), { maxLength: 3 })
      .map((a) => uniqueBy(a, (x) => hex(x.nodeId)).sort((x, y) => compareIds(x.nodeId, y.nodeId))),
    movedNodes: specVersion === 1
      ? fc.constant([])
      : fc.array(fc.record({ from: nodePath, to: nodePath, nodeId: id8, nodeType: fc.constantFrom('group' as const, 'array' as const) }), { maxLength: 3 }).map((m) => uniqueBy(m, (x) => x.to).sort((a, b) => compareNodePaths(a.to, b.to))),
  }),
);

const status = fc.record({ availability: fc.constantFrom('online' as const, 'read-only' as const, 'offline' as const), setAt: u53, limitedAvailabilityReason: fc.option(text) });
const update: fc.Arbitrary<RepoUpdate> = fc.oneof(
  fc.constantFrom(...(['repoInitialized', 'configChanged', 'metadataChanged', 'gcRan', 'expirationRan'] as const)).map((kind) => ({ kind }) as RepoUpdate),
  fc.record({ kind: fc.constant('repoMigrated' as const), fromVersion: fc.integer({ min: 0, max: 255 }), toVersion: fc.integer({ min: 0, max: 255 }) }),
  fc.record({ kind: fc.constantFrom('tagCreated' as const, 'branchCreated' as const), name: text }),
  fc.record({ kind: fc.constantFrom('tagDeleted' as const, 'branchDeleted' as const, 'branchReset' as const), name: text, previousSnapId: snapId }),
  fc.record({ kind: fc.constant('newCommit' as const), branch: text, newSnapId: snapId }),
  fc.record({ kind: fc.constant('commitAmended' as const), branch: text, previousSnapId: snapId, newSnapId: snapId }),
  fc.record({ kind: fc.constant('newDetachedSnapshot' as const), newSnapId: snapId }),
  fc.record({ kind: fc.constant('featureFlagChanged' as const), id: fc.integer({ min: 0, max: 65535 }), newValue: fc.boolean(), isSet: fc.boolean() }),
  fc.record({ kind: fc.constant('repoStatusChanged' as const), status }),
);
const repoInfo: fc.Arbitrary<RepoInfo> = fc
  .array(fc.record({ id: snapId, flushedAt: u53, message: text, metadata }), { minLength: 1, maxLength: 5 })
  .chain((raw) => {
    const snaps = uniqueBy(raw, (s) => hex(s.id)).sort((a, b) => compareIds(a.id, b.id));
    const pick = fc.constantFrom(...snaps.map((s) => s.id));
    const refs = fc.array(fc.record({ name: text, snapshotId: pick }), { maxLength: 3 }).map((r) => uniqueBy(r, (x) => x.name).sort((a, b) => compareUtf8(a.name, b.name)));
    const flags = fc.option(fc.array(fc.integer({ min: 0, max: 65535 }), { maxLength: 3 }).map((f) => [...new Set(f)].sort((a, b) => a - b)));
    return fc.record({
      specVersion: fc.constant(2 as const),
      repoSpecVersion: fc.constantFrom(1, 2),
      tags: refs,
      branches: refs,
      deletedTags: fc.array(text, { maxLength: 3 }).map((t) => [...new Set(t)].sort(compareUtf8)),
      snapshots: fc.tuple(...snaps.map(() => fc.option(pick))).map((parents) => snaps.map((s, i) => ({ ...s, parentId: parents[i] ?? null }))),
      status,
      metadata,
      latestUpdates: fc.array(fc.record({ update, updatedAt: u53, backupPath: fc.option(text) }), { minLength: 1, maxLength: 5 }),
      repoBeforeUpdates: fc.option(text),
      config: fc.option(fc.uint8Array({ maxLength: 16 })),
      enabledFeatureFlags: flags,
      disabledFeatureFlags: flags,
    });
  });

const FILE_TYPES = [
  { name: 'snapshot', arb: snapshot, encode: encodeSnapshot, decode: decodeSnapshot },
  { name: 'manifest', arb: manifest, encode: encodeManifest, decode: decodeManifest },
  { name: 'transaction log', arb: transactionLog, encode: encodeTransactionLog, decode: decodeTransactionLog },
  { name: 'repo info', arb: repoInfo, encode: encodeRepoInfo, decode: decodeRepoInfo },
] as const;

function decodesOrFailsTyped(decode: (b: Uint8Array) => unknown, bytes: Uint8Array): void {
  try {
    decode(bytes);
  } catch (err) {
    if (!isFloeError(err, 'CORRUPT_OBJECT', 'UNSUPPORTED')) throw err;
  }
}

describe.each(FILE_TYPES)('$name', ({ arb, encode, decode }) => {
  const enc = encode as (v: unknown, o?: object) => Uint8Array;
  const dec = decode as (b: Uint8Array) => unknown;

  it('round-trips random contents', () => {
    fc.assert(fc.property(arb as fc.Arbitrary<unknown>, (value) => {
      expect(dec(enc(value))).toEqual(value);
    }), { numRuns: 150 });
  });

  it('fails truncated, bit-flipped, wrong-magic, wrong-type and wrong-version files with typed errors', () => {
    fc.assert(fc.property(arb as fc.Arbitrary<unknown>, fc.boolean(), fc.nat(), fc.nat(), fc.integer({ min: 0, max: 7 }), (value, compressed, cut, at, bit) => {
      const bytes = enc(value, { compression: compressed ? 'zstd' : 'none' });
      decodesOrFailsTyped(dec, bytes.subarray(0, cut % bytes.length));
      const flipped = bytes.slice();
      flipped[at % bytes.length]! ^= 1 << bit;
      decodesOrFailsTyped(dec, flipped);
      for (const [offset, v] of [[0, 0x58], [37, 3], [36, 9], [38, 5]] as const) {
        const bad = bytes.slice();
        bad[offset] = v;
        expect(() => dec(bad)).toThrow(expect.objectContaining({ name: 'FloeError' }) as Error);
      }
    }), { numRuns: 300 });
  });
});

const flexValue: fc.Arbitrary<FlexValue> = fc.letrec<{ v: FlexValue }>((tie) => ({
  v: fc.oneof(
    { depthSize: 'small' },
    metadataValue,
    fc.uint8Array({ maxLength: 300 }),
    // Long vectors and strings force 16-bit lengths and offsets.
    fc.array(fc.oneof(fc.integer(), fc.double({ noNaN: true })), { minLength: 0, maxLength: 300 }),
    fc.string({ maxLength: 400 }),
    fc.array(tie('v'), { maxLength: 5 }),
    fc.dictionary(safeKey, tie('v'), { maxKeys: 5 }),
  ),
})).v;

describe('FlexBuffers', () => {
  it('round-trips random values, with or without sorted keys', () => {
    fc.assert(fc.property(flexValue, fc.boolean(), (value, sortKeys) => {
      expect(decodeFlexValue(encodeFlexValue(value, { sortKeys }))).toEqual(value);
    }), { numRuns: 400 });
  });

  it('uses 64-bit slots where values need them', () => {
    fc.assert(fc.property(fc.array(wideInt, { minLength: 1, maxLength: 5 }), fc.double({ noNaN: true }).filter((d) => Math.fround(d) !== d), (ints, d) => {
      const value = { ints, mixed: [d, ...ints, 'x'] };
      expect(decodeFlexValue(encodeFlexValue(value))).toEqual(value);
    }));
  });

  it('fails truncated, bit-flipped and random bytes with CORRUPT_OBJECT only', () => {
    const decodes = (bytes: Uint8Array) => {
      try {
        decodeFlexValue(bytes);
      } catch (err) {
        if (!isFloeError(err, 'CORRUPT_OBJECT')) throw err;
      }
    };
    fc.assert(fc.property(flexValue, fc.nat(), fc.nat(), fc.integer({ min: 0, max: 7 }), fc.uint8Array({ maxLength: 64 }), (value, cut, at, bit, noise) => {
      const bytes = encodeFlexValue(value);
      decodes(bytes.subarray(0, cut % bytes.length));
      decodes(bytes.subarray(cut % bytes.length));
      const flipped = bytes.slice();
      flipped[at % bytes.length]! ^= 1 << bit;
      decodes(flipped);
      decodes(noise);
    }), { numRuns: 1000 });
  });
});

describe('manifest lookups', () => {
  it('finds every ref by binary search and misses absent indices', () => {
    fc.assert(fc.property(manifest, (m) => {
      for (const array of m.arrays) {
        for (const ref of array.refs) expect(findChunkRef(array, ref.index)).toBe(ref);
        expect(findChunkRef(array, [0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 1])).toBeUndefined();
      }
    }));
  });

  it('finds refs in a decoded manifest without building the ref list, then with it', () => {
    fc.assert(fc.property(manifest, (m) => {
      const decoded = decodeManifest(encodeManifest(m));
      decoded.arrays.forEach((array, a) => {
        const refs = m.arrays[a]!.refs;
        expect(chunkRefCount(array)).toBe(refs.length);
        for (const ref of refs) expect(findChunkRef(array, ref.index)).toEqual(ref);
        expect(findChunkRef(array, [0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 1])).toBeUndefined();
        expect(array.refs).toEqual(refs);
        for (const ref of array.refs) expect(findChunkRef(array, ref.index)).toBe(ref);
      });
    }));
  });
});
