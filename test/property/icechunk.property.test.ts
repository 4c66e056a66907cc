// Round trips of every Icechunk file type with random contents; encoders given every list
// shuffled still write what the spec's ordering rules say; corrupt input always ends in a typed
// error (CORRUPT_OBJECT or UNSUPPORTED) or a value that is not wrong, never a crash, a hang or
// another error.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isFloeError, type ErrorCode } from '../../src/errors.ts';
import { HEADER_OFFSETS, HEADER_SIZE } from '../../src/format/icechunk/header.ts';
import { describeEachZstdBackend } from '../support/zstd.ts';
import { asChunkId, asManifestId, asNodeId, asSnapshotId, compareIds } from '../../src/format/icechunk/ids.ts';
import { chunkRefCount, compareChunkIndices, decodeManifest, findChunkRef, type ArrayManifest, type ChunkRef, type Manifest } from '../../src/format/icechunk/manifest.ts';
import { encodeManifest } from '../../src/format/icechunk/manifest-encode.ts';
import { decodeFlexValue } from '../../src/format/icechunk/flexbuffers-reader.ts';
import type { FlexValue } from '../../src/format/icechunk/flexbuffers-types.ts';
import { encodeFlexValue } from '../../src/format/icechunk/flexbuffers-writer.ts';
import type { MetadataItem, MetadataValue } from '../../src/format/icechunk/metadata-value.ts';
import { compareUtf8 } from '../../src/format/icechunk/metadata-value.ts';
import { compareNodePaths } from '../../src/format/icechunk/node-path.ts';
import { decodeRepoInfo, encodeRepoInfo, type RefEntry, type RepoInfo, type SnapshotInfo } from '../../src/format/icechunk/repo-info.ts';
import type { RepoUpdate } from '../../src/format/icechunk/repo-updates.ts';
import { decodeSnapshot, encodeSnapshot, type ManifestFileInfo, type NodeSnapshot, type Snapshot } from '../../src/format/icechunk/snapshot.ts';
import { decodeTransactionLog, encodeTransactionLog, type ArrayUpdatedChunks, type MoveOperation, type TransactionLog } from '../../src/format/icechunk/transaction-log.ts';

const id12 = fc.uint8Array({ minLength: 12, maxLength: 12 });
const id8 = fc.uint8Array({ minLength: 8, maxLength: 8 }).map(asNodeId);
const snapId = id12.map(asSnapshotId);
const u32 = fc.integer({ min: 0, max: 0xffffffff });
const u53 = fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER });
const text = fc.string({ unit: 'grapheme', maxLength: 12 });
const spec = fc.constantFrom(1 as const, 2 as const);
/**
 * Names whose orders disagree: UTF-16 puts U+1F600 before U+FF5E, UTF-8 after; '/a/b' < '/a-b'
 * component-wise but not byte-wise. Mixed into names and path segments so lists hold such pairs.
 */
const trickyName = fc.constantFrom('a', 'a-b', 'ab', 'b', 'é', 'e\u0301', '\uff5e', '\u{1f600}', 'Z', 'a.b', '~');
const name = fc.oneof(text, trickyName);
const isSegment = (s: string) => !s.includes('/') && s !== '.' && s !== '..';
const shortSegment = fc.oneof(fc.string({ unit: 'grapheme', minLength: 1, maxLength: 6 }), trickyName).filter(isSegment);
/** Long unicode names (graphemes of any plane, up to 120 of them). `size: 'max'`: fast-check's
 * default size would stop near 10 whatever maxLength says. */
const longSegment = fc.string({ unit: 'grapheme', minLength: 7, maxLength: 120, size: 'max' }).filter(isSegment);
const segment = fc.oneof({ weight: 12, arbitrary: shortSegment }, { weight: 1, arbitrary: longSegment });
/** Mostly shallow paths; one in five is 7..64 segments deep. */
const nodePath = fc
  .oneof({ weight: 4, arbitrary: fc.array(segment, { maxLength: 6 }) }, { weight: 1, arbitrary: fc.array(shortSegment, { minLength: 7, maxLength: 64, size: 'max' }) })
  .map((s) => '/' + s.join('/'));
/** The schema's optional `extra` bytes: absent, empty or a few bytes. */
const withExtra = <T extends object>(arb: fc.Arbitrary<T>): fc.Arbitrary<T> =>
  fc.tuple(arb, fc.option(fc.uint8Array({ maxLength: 4 }), { nil: undefined })).map(([v, extra]) => (extra === undefined ? v : { ...v, extra }));
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
const metadata = fc.array(fc.record({ name, value: metadataValue }), { maxLength: 3 }).map((items) =>
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
    // Only ManifestFileInfoV2 has `extra`; spec-1 files store a struct.
    manifestFiles: fc.array((specVersion === 2 ? withExtra : <T>(a: T) => a)(fc.record({ id: id12.map(asManifestId), sizeBytes: u53, numChunkRefs: u32 })), { maxLength: 3 }).map((f) => uniqueBy(f, (x) => hex(x.id)).sort((a, b) => compareIds(a.id, b.id))),
    nodes: fc.array(node(specVersion), { maxLength: 5 }).map((n) => uniqueBy(n, (x) => x.path).sort((a, b) => compareNodePaths(a.path, b.path))),
    extra: fc.option(fc.uint8Array({ maxLength: 4 })),
  }),
);

/** Small coordinates too, so indices share prefixes and differ in digit count (9 < 10). */
const index = fc.array(fc.oneof(u32, fc.integer({ min: 0, max: 12 })), { maxLength: 4 });
const chunkRef: fc.Arbitrary<ChunkRef> = withExtra<ChunkRef>(fc.oneof(
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
));
const manifest: fc.Arbitrary<Manifest> = withExtra(fc.record({
  specVersion: spec,
  id: id12.map(asManifestId),
  arrays: fc
    .array(withExtra(fc.record({ nodeId: id8, refs: fc.array(chunkRef, { maxLength: 6 }).map((r) => uniqueBy(r, (x) => x.index.join(',')).sort((a, b) => compareChunkIndices(a.index, b.index))) })), { maxLength: 3 })
    .map((a) => uniqueBy(a, (x) => hex(x.nodeId)).sort((x, y) => compareIds(x.nodeId, y.nodeId))),
}));

const sortedIds = fc.array(id8, { maxLength: 4 }).map((ids) => uniqueBy(ids, hex).sort(compareIds));
const transactionLog: fc.Arbitrary<TransactionLog> = spec.chain((specVersion) =>
  withExtra(fc.record({
    specVersion: fc.constant(specVersion),
    id: snapId,
    newGroups: sortedIds, newArrays: sortedIds, deletedGroups: sortedIds, deletedArrays: sortedIds, updatedArrays: sortedIds, updatedGroups: sortedIds,
    updatedChunks: fc
      .array(fc.record({ nodeId: id8, chunks: fc.array(index, { maxLength: 4 }).map((c) => uniqueBy(c, (x) => x.join(',')).sort(compareChunkIndices)) }), { maxLength: 3 })
      .map((a) => uniqueBy(a, (x) => hex(x.nodeId)).sort((x, y) => compareIds(x.nodeId, y.nodeId))),
    movedNodes: specVersion === 1
      ? fc.constant([])
      : fc.array(fc.record({ from: nodePath, to: nodePath, nodeId: id8, nodeType: fc.constantFrom('group' as const, 'array' as const) }), { maxLength: 3 }).map((m) => uniqueBy(m, (x) => x.to).sort((a, b) => compareNodePaths(a.to, b.to))),
  })),
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
    const refs = fc.array(fc.record({ name, snapshotId: pick }), { maxLength: 3 }).map((r) => uniqueBy(r, (x) => x.name).sort((a, b) => compareUtf8(a.name, b.name)));
    const flags = fc.option(fc.array(fc.integer({ min: 0, max: 65535 }), { maxLength: 3 }).map((f) => [...new Set(f)].sort((a, b) => a - b)));
    return withExtra(fc.record({
      specVersion: fc.constant(2 as const),
      repoSpecVersion: fc.constantFrom(1, 2),
      tags: refs,
      branches: refs,
      deletedTags: fc.array(name, { maxLength: 3 }).map((t) => [...new Set(t)].sort(compareUtf8)),
      snapshots: fc.tuple(...snaps.map(() => fc.option(pick))).map((parents) => snaps.map((s, i) => ({ ...s, parentId: parents[i] ?? null }))),
      status,
      metadata,
      latestUpdates: fc.array(fc.record({ update, updatedAt: u53, backupPath: fc.option(text) }), { minLength: 1, maxLength: 5 }),
      repoBeforeUpdates: fc.option(text),
      config: fc.option(fc.uint8Array({ maxLength: 16 })),
      enabledFeatureFlags: flags,
      disabledFeatureFlags: flags,
    }));
  });

// The ordering rules the spec's schema comments state (the Icechunk spec v2, specs/icechunk-v2.txt in the shared reference material), with
// comparators written here, not taken from src: UTF-8 bytes through Buffer, paths split on '/'.
const byBytes = (a: Uint8Array, b: Uint8Array) => Buffer.compare(Buffer.from(a), Buffer.from(b));
const byUtf8 = (a: string, b: string) => Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
const byNumber = (a: number, b: number) => a - b;
const byIndex = (a: readonly number[], b: readonly number[]) => {
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return a.length - b.length;
};
const segmentsOf = (path: string) => (path === '/' ? [] : path.slice(1).split('/'));
const byPath = (a: string, b: string) => {
  const x = segmentsOf(a);
  const y = segmentsOf(b);
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const d = byUtf8(x[i]!, y[i]!);
    if (d !== 0) return d;
  }
  return x.length - y.length;
};
const on = <T, K>(key: (t: T) => K, cmp: (a: K, b: K) => number) => (a: T, b: T) => cmp(key(a), key(b));
const sorted = <T>(list: readonly T[], cmp: (a: T, b: T) => number) => [...list].sort(cmp);

type FileName = 'snapshot' | 'manifest' | 'transaction log' | 'repo info';
interface OrderRule<T> {
  rule: string;
  lists: (value: T) => readonly (readonly unknown[])[];
  cmp: (a: never, b: never) => number;
}
const rule = <T, E>(text: string, lists: (value: T) => readonly (readonly E[])[], cmp: (a: E, b: E) => number): OrderRule<T> => ({ rule: text, lists, cmp: cmp as OrderRule<T>['cmp'] });
const ID_LISTS = ['newGroups', 'newArrays', 'deletedGroups', 'deletedArrays', 'updatedArrays', 'updatedGroups'] as const;

const RULES: { [K in FileName]: OrderRule<never>[] } = {
  'repo info': [
    rule('Repo.tags: ascending UTF-8 byte order of Ref.name', (r: RepoInfo) => [r.tags], on((x: RefEntry) => x.name, byUtf8)),
    rule('Repo.branches: ascending UTF-8 byte order of Ref.name', (r: RepoInfo) => [r.branches], on((x: RefEntry) => x.name, byUtf8)),
    rule('Repo.deleted_tags: ascending UTF-8 byte order', (r: RepoInfo) => [r.deletedTags], byUtf8),
    rule('Repo.snapshots: ascending byte order of SnapshotInfo.id', (r: RepoInfo) => [r.snapshots], on((x: SnapshotInfo) => x.id, byBytes)),
    rule('Repo.enabled_feature_flags: ascending numeric order', (r: RepoInfo) => [r.enabledFeatureFlags ?? []], byNumber),
    rule('Repo.disabled_feature_flags: ascending numeric order', (r: RepoInfo) => [r.disabledFeatureFlags ?? []], byNumber),
  ],
  snapshot: [
    rule('Snapshot.nodes: node path order (component-wise)', (s: Snapshot) => [s.nodes], on((n: NodeSnapshot) => n.path, byPath)),
    rule('Snapshot.metadata: ascending UTF-8 byte order of MetadataItem.name', (s: Snapshot) => [s.metadata], on((m: MetadataItem) => m.name, byUtf8)),
    rule('Snapshot.manifest_files(_v2): ascending byte order of id', (s: Snapshot) => [s.manifestFiles], on((f: ManifestFileInfo) => f.id, byBytes)),
  ],
  manifest: [
    rule('Manifest.arrays: ascending byte order of ArrayManifest.node_id', (m: Manifest) => [m.arrays], on((a: ArrayManifest) => a.nodeId, byBytes)),
    rule('ArrayManifest.refs: ascending lexicographic order of ChunkRef.index', (m: Manifest) => m.arrays.map((a) => a.refs), on((r: ChunkRef) => r.index, byIndex)),
  ],
  'transaction log': [
    rule('TransactionLog ObjectId8 lists: ascending byte order', (t: TransactionLog) => ID_LISTS.map((k) => t[k]), byBytes),
    rule('TransactionLog.updated_chunks: ascending byte order of node_id', (t: TransactionLog) => [t.updatedChunks], on((u: ArrayUpdatedChunks) => u.nodeId, byBytes)),
    rule('ArrayUpdatedChunks.chunks: ascending lexicographic order', (t: TransactionLog) => t.updatedChunks.map((u) => u.chunks), byIndex),
    rule('TransactionLog.moved_nodes: node path order of `to`', (t: TransactionLog) => [t.movedNodes], on((m: MoveOperation) => m.to, byPath)),
  ],
};

/**
 * A value with its lists in the order the encoder writes them: the spec's rules above, plus
 * metadata items (repo, snapshot infos) sorted by name as the reference writes them. Sorts are
 * stable, as the encoders' are. Other lists (the ops log, shapes, indices) keep their order.
 */
const sortMetadataItems = (items: readonly MetadataItem[]) => sorted(items, on((m: MetadataItem) => m.name, byUtf8));
const CANONICAL: { [K in FileName]: (value: never) => unknown } = {
  'repo info': (r: RepoInfo): RepoInfo => ({
    ...r,
    tags: sorted(r.tags, on((x) => x.name, byUtf8)),
    branches: sorted(r.branches, on((x) => x.name, byUtf8)),
    deletedTags: sorted(r.deletedTags, byUtf8),
    snapshots: sorted(r.snapshots, on((x) => x.id, byBytes)).map((s) => ({ ...s, metadata: sortMetadataItems(s.metadata) })),
    metadata: sortMetadataItems(r.metadata),
    enabledFeatureFlags: r.enabledFeatureFlags && sorted(r.enabledFeatureFlags, byNumber),
    disabledFeatureFlags: r.disabledFeatureFlags && sorted(r.disabledFeatureFlags, byNumber),
  }),
  snapshot: (s: Snapshot): Snapshot => ({
    ...s,
    nodes: sorted(s.nodes, on((n) => n.path, byPath)),
    metadata: sortMetadataItems(s.metadata),
    manifestFiles: sorted(s.manifestFiles, on((f) => f.id, byBytes)),
  }),
  manifest: (m: Manifest): Manifest => ({
    ...m,
    arrays: sorted(m.arrays, on((a) => a.nodeId, byBytes)).map((a) => ({ ...a, refs: sorted(a.refs, on((r) => r.index, byIndex)) })),
  }),
  'transaction log': (t: TransactionLog): TransactionLog => ({
    ...t,
    ...Object.fromEntries(ID_LISTS.map((k) => [k, sorted(t[k], byBytes)])),
    updatedChunks: sorted(t.updatedChunks, on((u) => u.nodeId, byBytes)).map((u) => ({ ...u, chunks: sorted(u.chunks, byIndex) })),
    movedNodes: sorted(t.movedNodes, on((m) => m.to, byPath)),
  }),
};

/** Deterministic shuffles from a seed (mulberry32), so fast-check can shrink and replay. */
function shuffler(seed: number) {
  let a = seed >>> 0;
  const random = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return <T>(list: readonly T[]): T[] => {
    const out = [...list];
    for (let i = out.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [out[i], out[j]] = [out[j]!, out[i]!];
    }
    return out;
  };
}
type Shuffle = ReturnType<typeof shuffler>;

/** Every list of a value shuffled, the positional ones (indices, shapes, names, extents) too. */
const SHUFFLE: { [K in FileName]: (value: never, shuffle: Shuffle) => unknown } = {
  'repo info': (r: RepoInfo, shuffle: Shuffle): RepoInfo => ({
    ...r,
    tags: shuffle(r.tags),
    branches: shuffle(r.branches),
    deletedTags: shuffle(r.deletedTags),
    snapshots: shuffle(r.snapshots).map((s) => ({ ...s, metadata: shuffle(s.metadata) })),
    metadata: shuffle(r.metadata),
    latestUpdates: shuffle(r.latestUpdates),
    enabledFeatureFlags: r.enabledFeatureFlags && shuffle(r.enabledFeatureFlags),
    disabledFeatureFlags: r.disabledFeatureFlags && shuffle(r.disabledFeatureFlags),
  }),
  snapshot: (s: Snapshot, shuffle: Shuffle): Snapshot => ({
    ...s,
    metadata: shuffle(s.metadata),
    manifestFiles: shuffle(s.manifestFiles),
    nodes: shuffle(s.nodes).map((n) => n.nodeData.kind === 'group' ? n : {
      ...n,
      nodeData: {
        ...n.nodeData,
        shape: shuffle(n.nodeData.shape),
        dimensionNames: n.nodeData.dimensionNames && shuffle(n.nodeData.dimensionNames),
        manifests: shuffle(n.nodeData.manifests).map((m) => ({ ...m, extents: shuffle(m.extents) })),
      },
    }),
  }),
  manifest: (m: Manifest, shuffle: Shuffle): Manifest => ({
    ...m,
    arrays: shuffle(m.arrays).map((a) => ({ ...a, refs: shuffle(a.refs).map((r) => ({ ...r, index: shuffle(r.index) })) })),
  }),
  'transaction log': (t: TransactionLog, shuffle: Shuffle): TransactionLog => ({
    ...t,
    ...Object.fromEntries(ID_LISTS.map((k) => [k, shuffle(t[k])])),
    updatedChunks: shuffle(t.updatedChunks).map((u) => ({ ...u, chunks: shuffle(u.chunks).map((c) => shuffle(c)) })),
    movedNodes: shuffle(t.movedNodes),
  }),
};

const FILE_TYPES = [
  { name: 'snapshot', arb: snapshot, encode: encodeSnapshot, decode: decodeSnapshot },
  { name: 'manifest', arb: manifest, encode: encodeManifest, decode: decodeManifest },
  { name: 'transaction log', arb: transactionLog, encode: encodeTransactionLog, decode: decodeTransactionLog },
  { name: 'repo info', arb: repoInfo, encode: encodeRepoInfo, decode: decodeRepoInfo },
] as const satisfies readonly { name: FileName; arb: unknown; encode: unknown; decode: unknown }[];

type Outcome = { value: unknown } | { code: ErrorCode };

/** Decodes, turning the two typed errors corrupt input may give into outcomes; anything else throws. */
function decodeOutcome(decode: (b: Uint8Array) => unknown, bytes: Uint8Array): Outcome {
  try {
    return { value: decode(bytes) };
  } catch (err) {
    if (!isFloeError(err, 'CORRUPT_OBJECT', 'UNSUPPORTED')) throw err;
    return { code: err.code };
  }
}

const H = HEADER_OFFSETS;
const FILE_TYPE_BYTES = [1, 2, 4, 6];

// Every file type is zstd-compressed by default: run them on each zstd backend.
describeEachZstdBackend('file types', () => {
  describe.each(FILE_TYPES)('$name', ({ name: fileName, arb, encode, decode }) => {
    const enc = encode as (v: unknown, o?: object) => Uint8Array;
    const dec = decode as (b: Uint8Array) => unknown;
    const canonical = CANONICAL[fileName] as (v: unknown) => unknown;

    it('round-trips random contents', () => {
      fc.assert(fc.property(arb as fc.Arbitrary<unknown>, (value) => {
        expect(dec(enc(value))).toEqual(value);
      }), { numRuns: 150 });
    });

    it('fails truncated, wrong-magic, wrong-type, wrong-version and wrong-compression files with the right typed error', () => {
      fc.assert(fc.property(arb as fc.Arbitrary<unknown>, fc.boolean(), fc.nat(), (value, compressed, cut) => {
        const bytes = enc(value, { compression: compressed ? 'zstd' : 'none' });
        const typeByte = bytes[H.fileType]!;
        const fails = (edit: (b: Uint8Array) => void, codes: ErrorCode[]) => {
          const bad = bytes.slice();
          edit(bad);
          const outcome = decodeOutcome(dec, bad);
          expect('code' in outcome && codes.includes(outcome.code), `${JSON.stringify(outcome).slice(0, 200)}: expected ${codes}`).toBe(true);
        };
        // A shorter file fails, or (cut inside the trailing padding of the payload's last string)
        // still holds the same value.
        const truncated = decodeOutcome(dec, bytes.subarray(0, cut % bytes.length));
        if ('value' in truncated) expect(truncated.value).toEqual(value);
        else expect(truncated.code).toBe('CORRUPT_OBJECT');
        fails((b) => { b[H.magic] = 0x58; }, ['CORRUPT_OBJECT']);
        fails((b) => { b[H.magic + 11]! ^= 1; }, ['CORRUPT_OBJECT']);
        for (const other of [...FILE_TYPE_BYTES.filter((t) => t !== typeByte), 0, 3, 9, 255]) fails((b) => { b[H.fileType] = other; }, ['CORRUPT_OBJECT']);
        for (const version of [0, 3, 9, 255]) fails((b) => { b[H.specVersion] = version; }, ['UNSUPPORTED']);
        for (const compression of [2, 5, 255]) fails((b) => { b[H.compression] = compression; }, ['UNSUPPORTED']);
        // Compressed bytes read as plain, or plain bytes as zstd.
        fails((b) => { b[H.compression] = compressed ? 0 : 1; }, ['CORRUPT_OBJECT']);
      }), { numRuns: 100 });
    });

    it('never returns a wrong value for a bit-flipped file', () => {
      fc.assert(fc.property(arb as fc.Arbitrary<unknown>, fc.boolean(), fc.nat(), fc.integer({ min: 0, max: 7 }), (value, compressed, at, bit) => {
        const bytes = enc(value, { compression: compressed ? 'zstd' : 'none' });
        const where = at % bytes.length;
        const flipped = bytes.slice();
        flipped[where]! ^= 1 << bit;
        const outcome = decodeOutcome(dec, flipped);
        if (where < H.implementation) {
          expect(outcome).toEqual({ code: 'CORRUPT_OBJECT' });
        } else if (where < H.specVersion) {
          // The implementation name is informational: the value is the same.
          expect(outcome).toEqual({ value });
        } else if (where < HEADER_SIZE) {
          expect(outcome).toHaveProperty('code');
        } else if ('value' in outcome) {
          // Without a checksum a flipped payload byte can decode to another value (a flipped id
          // byte is another id). It must still be one a file can hold: it encodes, and decodes
          // back to itself (lists in the spec's order).
          expect(dec(enc(outcome.value))).toEqual(canonical(outcome.value));
        }
      }), { numRuns: 300 });
    });

    it('writes every list the spec orders in that order, given all lists shuffled', () => {
      const rules = RULES[fileName] as OrderRule<unknown>[];
      const shuffleValue = SHUFFLE[fileName] as (v: unknown, shuffle: Shuffle) => unknown;
      fc.assert(fc.property(arb as fc.Arbitrary<unknown>, fc.integer(), (value, seed) => {
        const shuffled = shuffleValue(value, shuffler(seed));
        const decoded = dec(enc(shuffled));
        for (const { rule, lists, cmp } of rules) {
          for (const list of lists(decoded)) {
            for (let i = 1; i < list.length; i++) expect((cmp as (a: unknown, b: unknown) => number)(list[i - 1], list[i]), rule).toBeLessThanOrEqual(0);
          }
        }
        // Nothing lost or changed on the way, and lists without an order rule keep theirs.
        expect(decoded).toEqual(canonical(shuffled));
      }), { numRuns: 100 });
    });
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

describe('arbitraries', () => {
  it('generate deep paths and long unicode names', () => {
    const paths = fc.sample(nodePath, { numRuns: 300, seed: 42 });
    const depths = paths.map((p) => p.split('/').length - 1);
    expect(Math.max(...depths)).toBeGreaterThanOrEqual(60);
    expect(Math.max(...paths.flatMap((p) => p.split('/').map((s) => [...s].length)))).toBeGreaterThanOrEqual(60);
    expect(paths.some((p) => [...p].some((c) => c.codePointAt(0)! > 0xffff))).toBe(true);
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
