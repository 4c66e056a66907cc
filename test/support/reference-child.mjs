// Child process driving the reference Icechunk (WASM) over a Floe FsStorage directory. Reads one
// JSON command from argv, prints one JSON line `{ok, value | error}`, then exits (the WASM runtime
// would otherwise keep the process alive). Run with `node --import tsx` so the adapter's
// TypeScript loads.
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import * as zarr from 'zarrita';
import { Repository, Storage } from '@earthmover/icechunk';
import { createFetchStorage } from '@earthmover/icechunk/fetch-storage';
import { createHttpVirtualChunkFetcher } from '@earthmover/icechunk/http-virtual-chunks';
import { FsStorage } from '../../src/engine/storage/fs.ts';
import { customBackend } from '../../src/testing/adapters/icechunk-storage.ts';

const command = JSON.parse(process.argv[2] ?? '{}');

/** zarrita passes keys with a leading '/'; the reference's store wants them without, and Buffers. */
function zarrStore(store) {
  return {
    get: async (key) => (await store.get(key.replace(/^\//, ''))) ?? undefined,
    getRange: async (key, range) => (await store.getRange(key.replace(/^\//, ''), range)) ?? undefined,
    set: async (key, value) => store.set(key.replace(/^\//, ''), Buffer.from(value)),
  };
}

function storageAt(dir) {
  return Storage.newCustom(customBackend(new FsStorage({ root: dir })));
}

/** zarrita writes `codecs: []` when given none, which Zarr v3 (and Floe) refuse. */
const LITTLE_ENDIAN = [{ name: 'bytes', configuration: { endian: 'little' } }];

const chunkKey = (arrayPath, index) => `${arrayPath.slice(1)}/c/${index.join('/')}`;

/** Every index of a grid of `shape`, row-major. */
function gridIndices(shape) {
  let all = [[]];
  for (const n of shape) all = all.flatMap((prefix) => Array.from({ length: n }, (_, i) => [...prefix, i]));
  return all;
}

/** The files under `dir`/manifests: [name, size in bytes]. */
function manifestListing(dir) {
  const at = path.join(dir, 'manifests');
  if (!existsSync(at)) return [];
  return readdirSync(at).map((name) => [name, statSync(path.join(at, name)).size]);
}

async function run() {
  const storage = command.dir === undefined ? undefined : storageAt(command.dir);
  switch (command.op) {
    case 'write': {
      const repo = await Repository.create(storage);
      const session = await repo.writableSession('main');
      const root = zarr.root(zarrStore(session.store));
      await zarr.create(root, { attributes: {} });
      const arr = await zarr.create(root.resolve(command.path), {
        shape: [command.values.length], chunkShape: [command.chunk], dtype: 'int32', fillValue: 0,
        codecs: [{ name: 'bytes', configuration: { endian: 'little' } }],
      });
      await zarr.set(arr, null, { data: Int32Array.from(command.values), shape: [command.values.length], stride: [1] });
      return { snapshot: await session.commit(command.message ?? 'written by the reference') };
    }
    case 'read': {
      const repo = await Repository.open(storage);
      const session = await repo.readonlySession(command.version ?? { branch: 'main' });
      const arr = await zarr.open(zarr.root(zarrStore(session.store)).resolve(command.path), { kind: 'array' });
      const result = await zarr.get(arr);
      return { snapshot: session.snapshotId, values: Array.from(result.data, Number), branches: await repo.listBranches(), tags: await repo.listTags() };
    }
    case 'create-with-configs': {
      // One repository per item, created with the item's config through the reference JS API.
      const out = [];
      for (const item of command.items) out.push({ config: (await Repository.create(storageAt(item.dir), item.config)).config });
      return out;
    }
    case 'open-configs': {
      // Opens each repository; `resave` stores its config again as the reference serializes it.
      const out = [];
      for (const item of command.items) {
        try {
          const repo = await Repository.open(storageAt(item.dir));
          if (item.resave) await repo.saveConfig();
          out.push({ ok: true, config: repo.config });
        } catch (err) {
          out.push({ ok: false, error: String(err?.message ?? err) });
        }
      }
      return out;
    }
    case 'commit-arrays': {
      // One repository per item, created with the item's config; the root and listed groups, each
      // array's zarr.json and its chunks (4 bytes each: the listed ones, or with `fill` every chunk
      // of its shape, the grid) go through the store; one commit. Then each of `followUps` as one
      // more commit: `writes` (value -1) and `deletes` of chunks. `manifests` lists manifests/
      // (name and size) after each commit.
      const out = [];
      for (const item of command.items) {
        const repo = await Repository.create(storageAt(item.dir), item.config);
        const session = await repo.writableSession('main');
        const group = Buffer.from(JSON.stringify({ zarr_format: 3, node_type: 'group', attributes: {} }));
        for (const p of ['', ...(item.groups ?? [])]) await session.store.set(p === '' ? 'zarr.json' : `${p.slice(1)}/zarr.json`, group);
        for (const array of item.arrays) {
          await session.store.set(`${array.path.slice(1)}/zarr.json`, Buffer.from(JSON.stringify(array.metadata)));
          const chunks = array.fill ? gridIndices(array.metadata.shape) : array.chunks;
          for (const [k, index] of chunks.entries()) {
            await session.store.set(chunkKey(array.path, index), Buffer.from(Int32Array.of(k).buffer));
          }
        }
        const snapshots = [await session.commit('split by the reference')];
        const manifests = [manifestListing(item.dir)];
        for (const followUp of item.followUps ?? []) {
          const next = await repo.writableSession('main');
          for (const w of followUp.writes ?? []) await next.store.set(chunkKey(w.path, w.index), Buffer.from(Int32Array.of(-1).buffer));
          for (const d of followUp.deletes ?? []) await next.store.delete(chunkKey(d.path, d.index));
          snapshots.push(await next.commit('follow-up by the reference'));
          manifests.push(manifestListing(item.dir));
        }
        out.push({ snapshot: snapshots[0], snapshots, manifests });
      }
      return out;
    }
    case 'api-fetch': {
      // Repository.fetchConfig / fetchSpecVersion without opening; `saveConfig` first creates the
      // repository with it and stores it through open + saveConfig (issue 18 item 4).
      if (command.saveConfig) {
        await Repository.create(storage);
        await (await Repository.open(storage, command.saveConfig)).saveConfig();
      }
      const repo = await Repository.open(storage);
      return { config: await Repository.fetchConfig(storage), specVersion: await Repository.fetchSpecVersion(storage), openedSpecVersion: repo.specVersion };
    }
    case 'feature-flags': {
      // Sets each [name, setting] in turn, then lists the flags three ways.
      const repo = await Repository.open(storage);
      for (const [name, setting] of command.set ?? []) await repo.setFeatureFlag(name, setting);
      let rearrange = 'allowed';
      try {
        await repo.rearrangeSession('main');
      } catch (err) {
        rearrange = String(err?.message ?? err).split('\n')[0];
      }
      return { all: await repo.featureFlags(), enabled: await repo.enabledFeatureFlags(), disabled: await repo.disabledFeatureFlags(), rearrange };
    }
    case 'virtual-reads': {
      // Reads every chunk of `arrays` at every snapshot reachable from a branch or tag, through an
      // HTTP virtual-chunk fetcher that records each URL asked for (this WASM build has no
      // allVirtualChunkLocations): the locations the reference resolves.
      const repo = await Repository.open(storage, null, Object.fromEntries((command.prefixes ?? []).map((p) => [p, null])));
      const urls = new Set();
      await repo.setHttpVirtualChunkFetcher(async (_err, request) => {
        urls.add(request.url);
        return { data: new Uint8Array(request.rangeEnd - request.rangeStart) };
      });
      const snapshots = new Set();
      for (const branch of await repo.listBranches()) for (const s of await repo.ancestry({ branch })) snapshots.add(s.id);
      for (const tag of await repo.listTags()) for (const s of await repo.ancestry({ tag })) snapshots.add(s.id);
      for (const snapshotId of snapshots) {
        const session = await repo.readonlySession({ snapshotId });
        for (const key of await session.store.list()) if (/\/c\//.test(key)) await session.store.get(key);
      }
      return { snapshots: snapshots.size, urls: [...urls].sort() };
    }
    case 'virtual-http-read': {
      // Full values of `paths` at main, virtual chunks fetched over HTTP by the package's own
      // fetcher (ranged GETs checking the recorded ETag or modification time).
      const repo = await Repository.open(storage, null, Object.fromEntries(command.prefixes.map((p) => [p, null])));
      await repo.setHttpVirtualChunkFetcher(createHttpVirtualChunkFetcher());
      const session = await repo.readonlySession({ branch: 'main' });
      const root = zarr.root(zarrStore(session.store));
      const out = {};
      for (const p of command.paths) out[p] = Array.from((await zarr.get(await zarr.open(root.resolve(p), { kind: 'array' }))).data, Number);
      return out;
    }
    case 'virtual-set-refs': {
      // set_virtual_ref for each of `refs` ({key, location, offset, length, etag}) on main, one
      // commit; `{ unavailable: [the store's methods] }` when this build's store has no setVirtualRef
      // (the WASM build 2.2.2 has none, though its typings declare it).
      const repo = await Repository.open(storage, null, Object.fromEntries(command.prefixes.map((p) => [p, null])));
      const session = await repo.writableSession('main');
      if (typeof session.store.setVirtualRef !== 'function') return { unavailable: Object.getOwnPropertyNames(Object.getPrototypeOf(session.store)).sort() };
      for (const r of command.refs) await session.store.setVirtualRef(r.key, r.location, r.offset, r.length, r.etag ?? null, null, true);
      return { snapshot: await session.commit('virtual refs set by the reference') };
    }
    case 'write-then-rearrange': {
      // The reference's way to move written nodes: one commit writing `keys` ({key: bytes as
      // base64}), then a rearrange session making `moves`, committed.
      const repo = await Repository.open(storage);
      const session = await repo.writableSession('main');
      for (const [key, b64] of Object.entries(command.keys)) await session.store.set(key, Buffer.from(b64, 'base64'));
      await session.commit('written by the reference');
      const rearrange = await repo.rearrangeSession('main');
      let refused = '';
      try {
        await rearrange.store.set('other/zarr.json', Buffer.from(JSON.stringify({ zarr_format: 3, node_type: 'group', attributes: {} })));
      } catch (err) {
        refused = String(err?.message ?? err).split('\n')[0];
      }
      for (const [from, to] of command.moves) await rearrange.moveNode(from, to);
      const status = await rearrange.status();
      const mode = rearrange.mode;
      return { snapshot: await rearrange.commit('rearranged by the reference'), movedNodes: status.movedNodes, mode, refused };
    }
    case 'write-small': {
      // The interop matrix's repository (test/cross/http-interop.test.ts): /a int32[500] (chunks
      // of 70, inlined), /g/b float64[40,30] (chunks 20x15, 2.4 KB: chunk objects read by range);
      // commit, tag v1 and branch dev there; then a[0:100] = -1 committed on main.
      const repo = await Repository.create(storage);
      const session = await repo.writableSession('main');
      const root = zarr.root(zarrStore(session.store));
      await zarr.create(root, { attributes: { written: 'reference' } });
      await zarr.create(root.resolve('g'), { attributes: {} });
      const a = await zarr.create(root.resolve('a'), { shape: [500], chunkShape: [70], dtype: 'int32', fillValue: 0, codecs: LITTLE_ENDIAN });
      await zarr.set(a, null, { data: Int32Array.from({ length: 500 }, (_, i) => ((i * 37) % 1001) - 500), shape: [500], stride: [1] });
      const b = await zarr.create(root.resolve('g/b'), { shape: [40, 30], chunkShape: [20, 15], dtype: 'float64', fillValue: 0, codecs: LITTLE_ENDIAN });
      await zarr.set(b, null, { data: Float64Array.from({ length: 1200 }, (_, i) => i / 8 - 3), shape: [40, 30], stride: [30, 1] });
      const first = await session.commit('first');
      await repo.createTag('v1', first);
      await repo.createBranch('dev', first);
      const next = await repo.writableSession('main');
      const a2 = await zarr.open(zarr.root(zarrStore(next.store)).resolve('a'), { kind: 'array' });
      await zarr.set(a2, [zarr.slice(0, 100)], -1);
      return { first, second: await next.commit('second') };
    }
    case 'fetch-read': {
      // Each item: the repository at `url` through the reference's fetch storage: branches, tags,
      // main's log, the full values of `paths` at main and at tag v1, and a 2-d slice of
      // `slice.path` ([start, stop) per dimension). A failure is reported per item, not thrown.
      const out = [];
      for (const item of command.items) {
        try {
          const repo = await Repository.open(createFetchStorage(item.url));
          const read = async (version) => {
            const session = await repo.readonlySession(version);
            const root = zarr.root(zarrStore(session.store));
            const arrays = {};
            for (const p of item.paths) arrays[p] = Array.from((await zarr.get(await zarr.open(root.resolve(p), { kind: 'array' }))).data, Number);
            return { root: root, arrays };
          };
          const main = await read({ branch: 'main' });
          const tagged = await read({ tag: 'v1' });
          const sliced = await zarr.get(await zarr.open(main.root.resolve(item.slice.path), { kind: 'array' }), item.slice.ranges.map(([a, b]) => zarr.slice(a, b)));
          out.push({
            ok: true, branches: (await repo.listBranches()).sort(), tags: (await repo.listTags()).sort(),
            log: (await repo.ancestry({ branch: 'main' })).map((s) => s.id),
            main: main.arrays, v1: tagged.arrays, slice: Array.from(sliced.data, Number),
          });
        } catch (err) {
          out.push({ ok: false, error: String(err?.message ?? err).split('\n')[0] });
        }
      }
      return out;
    }
    case 'dump': {
      // Every key of a branch's tip with its bytes (base64), keys sorted.
      const repo = await Repository.open(storage);
      const session = await repo.readonlySession({ branch: command.branch ?? 'main' });
      const out = {};
      for (const key of (await session.store.list()).sort()) out[key] = Buffer.from(await session.store.get(key)).toString('base64');
      return out;
    }
    default:
      throw new Error(`unknown op ${command.op}`);
  }
}

// The reply is written, and only then does the process exit (the WASM runtime would keep it alive):
// exiting in the same tick as a large write to a pipe can cut the reply short (seen on Node 26).
const reply = (message) => process.stdout.write(JSON.stringify(message) + '\n', () => process.exit(0));
run().then(
  (value) => reply({ ok: true, value }),
  (err) => reply({ ok: false, error: String(err?.stack ?? err) }),
);
