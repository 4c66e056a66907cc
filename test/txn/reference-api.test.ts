// Issue 18 item 4: the rest of the reference's repository API where the names overlap, each
// cross-tested against the reference Icechunk (WASM, 2.2.2) on the same directory: fetchConfig /
// saveConfig / fetchSpecVersion, feature flags, virtual chunk locations, moving nodes.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Repository, Storage, type RepositoryConfig, type Session } from '../../src/txn/index.ts';
import { runReference } from '../support/reference-icechunk.ts';

const scratch = mkdtempSync(path.join(tmpdir(), 'floe-api-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
const dirOf = (name: string) => path.join(scratch, name);
const local = (name: string) => Storage.newLocalFilesystem(dirOf(name));
const utf8 = (text: string) => new TextEncoder().encode(text);

/** The reference JS getter returns unset fields as null; Floe leaves them out. */
function withoutNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutNulls);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== null).map(([k, v]) => [k, withoutNulls(v)]));
}

const GROUP = JSON.stringify({ zarr_format: 3, node_type: 'group', attributes: {} });
const int32Array = (shape: number[]) => JSON.stringify({
  zarr_format: 3, node_type: 'array', shape, data_type: 'int32', fill_value: 0, attributes: {},
  chunk_grid: { name: 'regular', configuration: { chunk_shape: [2] } },
  chunk_key_encoding: { name: 'default', configuration: { separator: '/' } },
  codecs: [{ name: 'bytes', configuration: { endian: 'little' } }],
});
const int32s = (...values: number[]) => new Uint8Array(Int32Array.from(values).buffer);

async function dumpOf(session: Session): Promise<Record<string, string>> {
  const keys: string[] = [];
  for await (const key of session.store.list()) keys.push(key);
  const out: Record<string, string> = {};
  for (const key of keys.sort()) out[key] = Buffer.from((await session.store.get(key)) ?? new Uint8Array()).toString('base64');
  return out;
}

/** zarr.json compared as JSON (each side may lay out the text its own way), chunks as bytes. */
function normalised(dump: Record<string, string>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(dump).map(([k, v]) => [k, k.endsWith('zarr.json') ? JSON.parse(Buffer.from(v, 'base64').toString()) : v]));
}

describe('the reference repository API where names overlap (issue 18 item 4)', () => {
  it('fetchConfig and fetchSpecVersion read, without opening, what the other side saved', async () => {
    // The reference saves; Floe fetches.
    const set = { inlineChunkThresholdBytes: 12, compression: { level: 4 }, caching: { numChunkRefs: 99 } };
    const byRef = runReference<{ config: unknown; specVersion: number; openedSpecVersion: number }>({ op: 'api-fetch', dir: dirOf('ref-saved'), saveConfig: set });
    const fetched = await Repository.fetchConfig(local('ref-saved'));
    expect(fetched).toEqual((await Repository.open(local('ref-saved'))).config);
    expect(fetched).toMatchObject(set);
    expect(withoutNulls(byRef.config)).toEqual(withoutNulls(fetched));
    expect(await Repository.fetchSpecVersion(local('ref-saved'))).toBe(byRef.specVersion);

    // Floe saves (create without settings, then open with overrides and saveConfig); the reference fetches.
    expect(await Repository.fetchConfig(await Repository.create(local('floe-saved')).then(() => local('floe-saved')))).toBeNull();
    const overrides: RepositoryConfig = { inlineChunkThresholdBytes: 30, compression: { level: 9 }, caching: { numSnapshotNodes: 7 } };
    await (await Repository.open(local('floe-saved'), overrides)).saveConfig();
    const floeFetched = await Repository.fetchConfig(local('floe-saved'));
    expect(floeFetched).toEqual(overrides);
    const refFetched = runReference<{ config: unknown; specVersion: number; openedSpecVersion: number }>({ op: 'api-fetch', dir: dirOf('floe-saved') });
    expect(withoutNulls(refFetched.config)).toEqual(overrides);
    expect([refFetched.specVersion, refFetched.openedSpecVersion]).toEqual([2, 2]);
    expect([await Repository.fetchSpecVersion(local('floe-saved')), (await Repository.open(local('floe-saved'))).specVersion]).toEqual([2, 2]);
    expect(await Repository.fetchSpecVersion(local('nothing-here'))).toBeNull();
    await expect(Repository.fetchConfig(local('nothing-here'))).rejects.toMatchObject({ code: 'NOT_FOUND' });
  }, 60_000);

  it('feature flags set by one side are read, and honoured, by the other', async () => {
    const repo = await Repository.create(local('flags'));
    await repo.setFeatureFlag('create_tag', false);
    await repo.setFeatureFlag('delete_tag', true);
    // The reference adds its own setting, then lists and tries a rearrange session.
    const ref = runReference<{ all: { id: number }[]; enabled: { id: number }[]; disabled: { id: number }[]; rearrange: string }>({
      op: 'feature-flags', dir: dirOf('flags'), set: [['move_node', false]],
    });
    const byId = <T extends { id: number }>(flags: T[]) => [...flags].sort((a, b) => a.id - b.id);
    const reopened = await Repository.open(local('flags'));
    expect(byId(await reopened.featureFlags())).toEqual(byId(ref.all));
    expect(byId(await reopened.enabledFeatureFlags())).toEqual(byId(ref.enabled));
    expect(byId(await reopened.disabledFeatureFlags())).toEqual(byId(ref.disabled));
    expect((await reopened.disabledFeatureFlags()).map((f) => f.name).sort()).toEqual(['create_tag', 'move_node']);
    // Both refuse what the flags turn off.
    expect(ref.rearrange).toContain('move_node');
    await expect(reopened.rearrangeSession('main')).rejects.toMatchObject({ code: 'UNSUPPORTED', message: expect.stringContaining("'move_node'") });
    await expect(reopened.createTag('t', await reopened.lookupBranch('main'))).rejects.toMatchObject({ code: 'UNSUPPORTED' });
  }, 60_000);

  it('all virtual chunk locations over several snapshots, branches and tags: the set the reference resolves', async () => {
    const prefix = 'http://example.test/';
    const config: RepositoryConfig = { virtualChunkContainers: { [prefix]: { urlPrefix: prefix, store: { type: 'Http', field0: {} } } } };
    const repo = await Repository.create(local('virtual'), config, 2, { [prefix]: null });
    const write = async (branch: string, refs: [string, string][], message: string) => {
      const session = await repo.writableSession(branch);
      for (const [key, url] of refs) await session.store.setVirtualRef(key, `${prefix}${url}`, 0, 8);
      return { session, snapshot: await session.commit(message) };
    };
    const first = await repo.writableSession('main');
    await first.store.set('zarr.json', utf8(GROUP));
    await first.store.set('v/zarr.json', utf8(int32Array([6])));
    await first.store.set('w/zarr.json', utf8(int32Array([4])));
    await first.store.setVirtualRef('v/c/0', `${prefix}one.nc`, 0, 8);
    await first.store.setVirtualRef('v/c/1', `${prefix}one.nc`, 8, 8);
    await first.store.set('w/c/0', int32s(1, 2)); // native: not a location
    const s1 = await first.commit('first');
    // Overwrite one.nc's chunks on main: one.nc stays reachable through s1 only.
    await write('main', [['v/c/0', 'two.nc'], ['v/c/1', 'two.nc'], ['w/c/1', 'three.nc']], 'second');
    await repo.createBranch('dev', s1);
    const dev = await write('dev', [['v/c/2', 'dev.nc']], 'on dev');
    await repo.createTag('kept', dev.snapshot);
    await repo.resetBranch('dev', s1); // dev.nc now reachable through the tag only

    const locations = await repo.allVirtualChunkLocations();
    expect(locations).toEqual(['dev.nc', 'one.nc', 'three.nc', 'two.nc'].map((u) => prefix + u));
    // A session sees its own snapshot plus uncommitted refs.
    const pending = await repo.writableSession('main');
    await pending.store.setVirtualRef('w/c/0', `${prefix}pending.nc`, 0, 8);
    expect(await pending.allVirtualChunkLocations()).toEqual(['pending.nc', 'three.nc', 'two.nc'].map((u) => prefix + u));

    const ref = runReference<{ snapshots: number; urls: string[] }>({ op: 'virtual-reads', dir: dirOf('virtual'), prefixes: [prefix] });
    expect(ref.snapshots).toBe(4); // initial, first, second, on dev
    expect(ref.urls).toEqual(locations);
  }, 60_000);

  it('moving a group with arrays in a session with uncommitted writes commits what the reference commits by write + rearrange', async () => {
    const keys: Record<string, Uint8Array> = {
      'zarr.json': utf8(GROUP), 'g/zarr.json': utf8(GROUP), 'g/a/zarr.json': utf8(int32Array([4])), 'g/a/c/0': int32s(1, 2), 'g/a/c/1': int32s(3, 4),
      'g/b/zarr.json': utf8(int32Array([2])), 'g/b/c/0': int32s(5, 6), 'g/s/zarr.json': utf8(GROUP),
    };
    const moves: [string, string][] = [['/g', '/h'], ['/h/a', '/h/s/renamed']];
    // Floe: one session writes, then moves while dirty, then commits.
    const floeRepo = await Repository.create(local('moved-floe'));
    const session = await floeRepo.writableSession('main');
    for (const [key, bytes] of Object.entries(keys)) await session.store.set(key, bytes);
    for (const [from, to] of moves) await session.moveNode(from, to);
    expect(session.hasUncommittedChanges).toBe(true);
    await session.commit('written and moved by Floe');
    // The reference: a commit writing, then a rearrange session moving.
    await Repository.create(local('moved-ref'));
    const ref = runReference<{ movedNodes: { from: string; to: string }[]; mode: string; refused: string }>({
      op: 'write-then-rearrange', dir: dirOf('moved-ref'), moves,
      keys: Object.fromEntries(Object.entries(keys).map(([k, v]) => [k, Buffer.from(v).toString('base64')])),
    });
    expect(ref.mode).toBe('rearrange');
    expect(ref.refused).toContain('rearrange');
    // The reference's status lists a moved subtree node by node.
    expect(ref.movedNodes).toEqual(expect.arrayContaining([{ from: '/g', to: '/h' }, { from: '/g/a', to: '/h/s/renamed' }]));

    const expected = {
      'zarr.json': GROUP, 'h/zarr.json': GROUP, 'h/s/zarr.json': GROUP, 'h/s/renamed/zarr.json': int32Array([4]),
      'h/s/renamed/c/0': int32s(1, 2), 'h/s/renamed/c/1': int32s(3, 4), 'h/b/zarr.json': int32Array([2]), 'h/b/c/0': int32s(5, 6),
    };
    const expectedDump = normalised(Object.fromEntries(Object.entries(expected).sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([k, v]) => [k, Buffer.from(typeof v === 'string' ? utf8(v) : v).toString('base64')])));
    // Each side reads the other's result: the same tree and values.
    const refReadsFloe = runReference<Record<string, string>>({ op: 'dump', dir: dirOf('moved-floe') });
    const floeReadsRef = await dumpOf(await (await Repository.open(local('moved-ref'))).readonlySession());
    expect(normalised(refReadsFloe)).toEqual(expectedDump);
    expect(normalised(floeReadsRef)).toEqual(expectedDump);
    expect(Object.keys(refReadsFloe)).toEqual(Object.keys(floeReadsRef));

    // Floe's rearrange session behaves as the reference's: moves only.
    const rearrange = await floeRepo.rearrangeSession('main');
    expect(rearrange.mode).toBe('rearrange');
    await expect(rearrange.store.set('x/zarr.json', utf8(GROUP))).rejects.toMatchObject({ code: 'READ_ONLY' });
    await rearrange.moveNode('/h/b', '/h/c');
    await rearrange.commit('rearranged by Floe');
    const after = await dumpOf(await floeRepo.readonlySession());
    expect(Object.keys(after).filter((k) => k.startsWith('h/c/'))).toEqual(['h/c/c/0', 'h/c/zarr.json']);
  }, 60_000);
});
