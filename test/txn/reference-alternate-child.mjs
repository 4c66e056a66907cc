// Child process driving the reference Icechunk (WASM) for reference-alternate.test.ts, over a
// Floe FsStorage directory through the custom storage adapter. One JSON command in argv, one
// JSON line out; `ready` lines and a go-file let the parent interleave a commit of its own
// between this session's start and its commit. Run with `node --import tsx`.
import { existsSync } from 'node:fs';
import * as zarr from 'zarrita';
import { Repository, Storage } from '@earthmover/icechunk';
import { FsStorage } from '../../src/engine/storage/fs.ts';
import { customBackend } from '../support/reference-icechunk.ts';

const command = JSON.parse(process.argv[2] ?? '{}');

const zarrStore = (store) => ({
  get: async (key) => (await store.get(key.replace(/^\//, ''))) ?? undefined,
  getRange: async (key, range) => (await store.getRange(key.replace(/^\//, ''), range)) ?? undefined,
});

async function readAll(session, paths) {
  const out = {};
  for (const path of paths) {
    const arr = await zarr.open(zarr.root(zarrStore(session.store)).resolve(path), { kind: 'array' });
    out[path] = Array.from((await zarr.get(arr)).data, Number);
  }
  return out;
}

async function waitFor(file, ms) {
  const until = Date.now() + ms;
  while (!existsSync(file)) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${file}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function run() {
  const repo = await Repository.open(Storage.newCustom(customBackend(new FsStorage({ root: command.dir }))));
  switch (command.op) {
    // Reads the branch, writes 4 int32 values into one chunk, commits (after the go-file, if given).
    case 'commit': {
      const session = await repo.writableSession('main');
      const before = await readAll(session, [command.path]);
      const bytes = Buffer.from(new Int32Array(4).fill(command.value).buffer);
      await session.store.set(`${command.path.slice(1)}/c/${command.chunk}`, bytes);
      if (command.goFile) {
        process.stdout.write('ready\n');
        await waitFor(command.goFile, 30_000);
      }
      try {
        const snapshot = await session.commit(command.message);
        const ancestry = (await repo.ancestry({ branch: 'main' })).map((s) => s.id);
        return { snapshot, before: before[command.path], ancestry };
      } catch (err) {
        // The reference's own rebase with its default solver, to see it list the conflict.
        // Disjoint changes rebase and commit; a real conflict makes rebase throw.
        try {
          await session.rebase();
          return { conflict: String(err?.message ?? err), rebase: null, rebasedSnapshot: await session.commit(`${command.message}, rebased`) };
        } catch (e) {
          return { conflict: String(err?.message ?? err), rebase: String(e?.message ?? e) };
        }
      }
    }
    case 'dump': {
      const out = { branches: await repo.listBranches(), tags: await repo.listTags(), versions: {} };
      for (const branch of out.branches) out.versions[`branch:${branch}`] = await readAll(await repo.readonlySession({ branch }), command.paths[`branch:${branch}`] ?? []);
      for (const tag of out.tags) out.versions[`tag:${tag}`] = await readAll(await repo.readonlySession({ tag }), command.paths[`tag:${tag}`] ?? []);
      return out;
    }
    default:
      throw new Error(`unknown op ${command.op}`);
  }
}

run().then(
  (value) => {
    process.stdout.write(JSON.stringify({ ok: true, value }) + '\n');
    process.exit(0);
  },
  (err) => {
    process.stdout.write(JSON.stringify({ ok: false, error: String(err?.stack ?? err) }) + '\n');
    process.exit(0);
  },
);
