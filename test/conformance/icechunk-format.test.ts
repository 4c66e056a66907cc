// Every metadata file of every reference repository decodes; re-encoding gives the same object
// and, because the reference's flatbuffers encoding is deterministic, the same payload bytes.
// Refs, snapshot ids, messages, node paths, types, attributes, shapes and chunk-ref counts are
// checked against the expected JSON the reference produced.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { decodeFile } from '../../src/format/icechunk/framing.ts';
import type { FileType } from '../../src/format/icechunk/header.ts';
import { idToString, parseManifestId, parseSnapshotId, type SnapshotId } from '../../src/format/icechunk/ids.ts';
import { snapshotKey, manifestKey, transactionLogKey, parseV1RefKey, REPO_INFO_KEY } from '../../src/format/icechunk/keys.ts';
import { decodeManifest, type Manifest } from '../../src/format/icechunk/manifest.ts';
import { encodeManifest, encodeManifestPayload } from '../../src/format/icechunk/manifest-encode.ts';
import { decodeRepoInfo, decodeRepoConfig, encodeRepoConfig, encodeRepoInfo, encodeRepoInfoPayload } from '../../src/format/icechunk/repo-info.ts';
import { decodeSnapshot, encodeSnapshot, encodeSnapshotPayload, type Snapshot } from '../../src/format/icechunk/snapshot.ts';
import { decodeTransactionLog, encodeTransactionLog, encodeTransactionLogPayload } from '../../src/format/icechunk/transaction-log.ts';
import { decodeV1Ref } from '../../src/format/icechunk/spec1.ts';
import { fixturePath } from '../support/fixtures.ts';
import { describeEachZstdBackend } from '../support/zstd.ts';

const REPOS = ['test-repo-v1', 'test-repo-v2', 'test-repo-v2-migrated', 'split-repo-v2', 'expire-repo-v2-by-2.0.5'];

interface Codec {
  type: FileType;
  decode: (bytes: Uint8Array, where: string) => unknown;
  encode: (value: never) => Uint8Array;
  payload: (value: never) => Uint8Array;
}
const CODECS: Record<string, Codec> = {
  snapshots: { type: 'snapshot', decode: decodeSnapshot, encode: encodeSnapshot, payload: encodeSnapshotPayload },
  manifests: { type: 'manifest', decode: decodeManifest, encode: encodeManifest, payload: encodeManifestPayload },
  transactions: { type: 'transactionLog', decode: decodeTransactionLog, encode: encodeTransactionLog, payload: encodeTransactionLogPayload },
  overwritten: { type: 'repoInfo', decode: decodeRepoInfo, encode: encodeRepoInfo, payload: encodeRepoInfoPayload },
  repo: { type: 'repoInfo', decode: decodeRepoInfo, encode: encodeRepoInfo, payload: encodeRepoInfoPayload },
};

function metadataFiles(repo: string): { key: string; codec: Codec }[] {
  const root = fixturePath('icechunk/repos', repo);
  const out: { key: string; codec: Codec }[] = [];
  if (existsSync(path.join(root, REPO_INFO_KEY))) out.push({ key: REPO_INFO_KEY, codec: CODECS.repo! });
  for (const dir of ['snapshots', 'manifests', 'transactions', 'overwritten']) {
    if (!existsSync(path.join(root, dir))) continue;
    for (const name of readdirSync(path.join(root, dir)).sort()) out.push({ key: `${dir}/${name}`, codec: CODECS[dir]! });
  }
  return out;
}

const read = (repo: string, key: string) => new Uint8Array(readFileSync(fixturePath('icechunk/repos', repo, key)));

// The reference writes zstd frames without a content size: read them on each zstd backend.
describeEachZstdBackend('reference files', () => {
  describe.each(REPOS)('%s', (repo) => {
    const files = metadataFiles(repo);

    it('has metadata files to check', () => {
      expect(files.length).toBeGreaterThan(3);
    });

    it.each(files.map((f) => [f.key, f] as const))('%s decodes, re-encodes to an equal object and identical payload bytes', (key, { codec }) => {
      const bytes = read(repo, key);
      const value = codec.decode(bytes, key);
      const again = codec.decode(codec.encode(value as never), key);
      expect(again).toEqual(value);
      // The reference builds payloads deterministically; we follow its creation and field order.
      const original = decodeFile(bytes, codec.type, key).payload;
      expect(Buffer.from(codec.payload(value as never)).equals(Buffer.from(original))).toBe(true);
    });

    it('names every snapshot, manifest and transaction log file by its own id', () => {
      for (const { key } of files) {
        const [dir] = key.split('/');
        if (dir === 'snapshots') expect(snapshotKey(decodeSnapshot(read(repo, key)).id)).toBe(key);
        if (dir === 'manifests') expect(manifestKey(decodeManifest(read(repo, key)).id)).toBe(key);
        if (dir === 'transactions') expect(transactionLogKey(decodeTransactionLog(read(repo, key)).id)).toBe(key);
        if (dir === 'overwritten') expect(key).toMatch(/^overwritten\/repo\.\d{14}\.[0-9A-Z]{20}$/);
      }
    });

    const expected = JSON.parse(readFileSync(fixturePath('icechunk/expected', `${repo}.json`), 'utf8')) as Record<string, ExpectedRef>;

    it.each(Object.entries(expected))('%s resolves to the expected snapshot, nodes and chunk refs', (refName, want) => {
      const snapshotId = resolveRef(repo, refName);
      expect(idToString(snapshotId)).toBe(want.snapshot);
      const snapshot = decodeSnapshot(read(repo, snapshotKey(snapshotId)));
      expect(snapshot.message).toBe(want.message);
      expect(snapshot.nodes.map((n) => n.path)).toEqual(Object.keys(want.nodes));
      for (const node of snapshot.nodes) {
        const w = want.nodes[node.path]!;
        const zarr = JSON.parse(new TextDecoder().decode(node.userData)) as { attributes?: unknown; shape?: number[] };
        expect(node.nodeData.kind).toBe(w.type);
        if (w.attributes) expect(zarr.attributes ?? {}).toEqual(w.attributes);
        if (node.nodeData.kind === 'array') {
          expect(node.nodeData.shape.map((d) => d.arrayLength)).toEqual(w.shape);
          expect(zarr.shape).toEqual(w.shape);
          expect(countRefs(repo, snapshot, node.id)).toEqual(w.chunk_refs ?? {});
        }
      }
    });

    it('has a consistent ancestry: every parent exists and every chain ends at the initial snapshot', () => {
      const parents = ancestry(repo);
      for (const id of parents.keys()) {
        const seen = new Set<string>();
        let at: string | null = id;
        while (at !== null) {
          expect(seen.has(at)).toBe(false);
          seen.add(at);
          expect(parents.has(at)).toBe(true);
          at = parents.get(at)!;
        }
        expect([...seen].at(-1)).toMatch(/^(1CECHNKREP0F1RSTCMT0|P874YS3J196959RDHX7G)$/);
      }
    });
  });
});

interface ExpectedRef {
  snapshot: string;
  message: string;
  nodes: Record<string, { type: 'group' | 'array'; attributes?: unknown; shape?: number[]; chunk_refs?: Record<string, number> }>;
}

function resolveRef(repo: string, refName: string): SnapshotId {
  const [kind, ...rest] = refName.split(':');
  const name = rest.join(':');
  const root = fixturePath('icechunk/repos', repo);
  if (existsSync(path.join(root, REPO_INFO_KEY))) {
    const info = decodeRepoInfo(read(repo, REPO_INFO_KEY));
    const list = kind === 'branch' ? info.branches : info.tags;
    const ref = list.find((r) => r.name === name);
    expect(ref, `${refName} in ${repo}/repo`).toBeDefined();
    return ref!.snapshotId;
  }
  const key = `refs/${kind}.${name}/ref.json`;
  expect(parseV1RefKey(key)).toEqual({ kind, name });
  return decodeV1Ref(read(repo, key), key);
}

function countRefs(repo: string, snapshot: Snapshot, nodeId: Uint8Array): Record<string, number> {
  const counts: Record<string, number> = {};
  const node = snapshot.nodes.find((n) => Buffer.from(n.id).equals(Buffer.from(nodeId)))!;
  if (node.nodeData.kind !== 'array') return counts;
  for (const ref of node.nodeData.manifests) {
    const manifest: Manifest = decodeManifest(read(repo, manifestKey(ref.objectId)));
    for (const array of manifest.arrays) {
      if (!Buffer.from(array.nodeId).equals(Buffer.from(nodeId))) continue;
      for (const chunk of array.refs) {
        const inExtent = chunk.index.every((c, d) => c >= ref.extents[d]!.from && c < ref.extents[d]!.to);
        if (inExtent) counts[chunk.kind] = (counts[chunk.kind] ?? 0) + 1;
      }
    }
  }
  return counts;
}

/** Parent links: from the repo info file in spec 2, from the snapshot files in spec 1. */
function ancestry(repo: string): Map<string, string | null> {
  const parents = new Map<string, string | null>();
  const root = fixturePath('icechunk/repos', repo);
  if (existsSync(path.join(root, REPO_INFO_KEY))) {
    for (const s of decodeRepoInfo(read(repo, REPO_INFO_KEY)).snapshots) parents.set(idToString(s.id), s.parentId && idToString(s.parentId));
  } else {
    for (const name of readdirSync(path.join(root, 'snapshots'))) {
      const s = decodeSnapshot(read(repo, `snapshots/${name}`));
      parents.set(idToString(s.id), s.parentId && idToString(s.parentId));
    }
  }
  return parents;
}

describe('repo info details', () => {
  it('reads the migrated repository and its spec-1 snapshots through one model', () => {
    const info = decodeRepoInfo(read('test-repo-v2-migrated', REPO_INFO_KEY));
    expect(info.specVersion).toBe(2);
    expect(info.latestUpdates[0]!.update).toEqual({ kind: 'repoMigrated', fromVersion: 1, toVersion: 2 });
    const snap = decodeSnapshot(read('test-repo-v2-migrated', snapshotKey(parseSnapshotId('XDZ162T1TYBEJMK99NPG'))));
    expect(snap.specVersion).toBe(1);
    expect(snap.parentId).not.toBeNull();
  });

  it('decodes the FlexBuffers config', () => {
    const info = decodeRepoInfo(read('test-repo-v2', REPO_INFO_KEY));
    const config = decodeRepoConfig(info.config!) as Record<string, unknown>;
    expect(config.inline_chunk_threshold_bytes).toBe(12);
    expect(info.deletedTags).toEqual(['deleted']);
    expect(info.branches.map((b) => b.name)).toEqual(['main', 'my-branch']);
  });

  it('re-encodes every repository config the reference wrote byte-identically', () => {
    let configs = 0;
    for (const repo of REPOS) {
      for (const { key, codec } of metadataFiles(repo)) {
        if (codec.type !== 'repoInfo') continue;
        const config = decodeRepoInfo(read(repo, key)).config;
        if (!config) continue;
        configs++;
        expect(Buffer.from(encodeRepoConfig(decodeRepoConfig(config))).toString('hex'), `${repo}/${key}`).toBe(Buffer.from(config).toString('hex'));
      }
    }
    expect(configs).toBeGreaterThan(10);
  });

  it('reads virtual refs with their location', () => {
    const m = decodeManifest(read('test-repo-v2', manifestKey(parseManifestId('WTMRMCW414QYFTX7JJPG'))));
    const virtual = m.arrays.flatMap((a) => a.refs).find((r) => r.kind === 'virtual');
    expect(virtual).toMatchObject({ kind: 'virtual', location: expect.stringMatching(/^s3:\/\/testbucket\//) });
  });
});
