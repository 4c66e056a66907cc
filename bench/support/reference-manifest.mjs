// Child process for bench/icechunk-format.ts: the reference Icechunk (`@earthmover/icechunk`, WASM
// build) writes one 2-D array of N native chunk refs through `Storage.newCustom` over a Floe
// MemoryStorage, commits, and the manifest object(s) it wrote under manifests/ are copied into
// OUT_DIR. Prints one JSON line `{ok, value | error}` and exits (the WASM runtime would otherwise
// keep the process alive). Run: node --import tsx bench/support/reference-manifest.mjs N OUT_DIR
// Chunk lengths vary (100..999 bytes); the inline threshold is 0 so every chunk is a native ref.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Repository, Storage } from '@earthmover/icechunk';
import { MemoryStorage } from '../../src/engine/storage/memory.ts';
import { customBackend } from '../../src/testing/adapters/icechunk-storage.ts';

const n = Number(process.argv[2] ?? 100000);
const outDir = process.argv[3];

async function run() {
  const floeStorage = new MemoryStorage();
  const storage = Storage.newCustom(customBackend(floeStorage));
  const repo = await Repository.create(storage, { inlineChunkThresholdBytes: 0 });
  const session = await repo.writableSession('main');
  const store = session.store;
  const side = Math.ceil(Math.sqrt(n));
  await store.set('zarr.json', Buffer.from(JSON.stringify({ zarr_format: 3, node_type: 'group', attributes: {} })));
  await store.set('a/zarr.json', Buffer.from(JSON.stringify({
    zarr_format: 3, node_type: 'array', shape: [side, side], data_type: 'uint8',
    chunk_grid: { name: 'regular', configuration: { chunk_shape: [1, 1] } },
    chunk_key_encoding: { name: 'default', configuration: { separator: '/' } },
    fill_value: 0, codecs: [{ name: 'bytes', configuration: {} }], attributes: {},
  })));
  const started = performance.now();
  const BATCH = 256;
  const payload = Buffer.alloc(1000, 7);
  for (let i = 0; i < n; i += BATCH) {
    const sets = [];
    for (let j = i; j < Math.min(n, i + BATCH); j++) {
      const length = 100 + ((j * 7919) % 900);
      sets.push(store.set(`a/c/${Math.floor(j / side)}/${j % side}`, payload.subarray(0, length)));
    }
    await Promise.all(sets);
  }
  const setMs = performance.now() - started;
  const commitStarted = performance.now();
  const snapshot = await session.commit(`${n} refs written by the reference`);
  const commitMs = performance.now() - commitStarted;
  mkdirSync(outDir, { recursive: true });
  const manifests = [];
  for await (const o of floeStorage.list('manifests/')) {
    const got = await floeStorage.get(o.key);
    const file = path.join(outDir, path.basename(o.key));
    writeFileSync(file, got.bytes);
    manifests.push({ key: o.key, file, size: got.bytes.length });
  }
  return { snapshot, setMs, commitMs, manifests };
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
