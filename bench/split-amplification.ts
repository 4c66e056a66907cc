// Split-manifest write amplification (issue 18 part 3): Floe and the reference Icechunk (npm
// @earthmover/icechunk, WASM build, in a child process over Floe's FsStorage) in one run.
//
//   npx tsx bench/split-amplification.ts [--rows 256] [--cols 64] [--splits 1,4,16,256] [--dir D]
//
// Per split count: a new repository whose config splits a --rows x --cols chunk grid (int32, one
// element per 4-byte chunk, so chunks are inline in the manifests) into that many regions (a
// square count s splits each dimension in sqrt(s)); every chunk written and committed; then one
// chunk rewritten and committed. Measured: the bytes of the files that appear under manifests/
// with the second commit (the directory listed before and after), per changed chunk.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Repository, Storage, type RepositoryConfig } from '../src/txn/index.ts';

const { values: opts } = parseArgs({
  options: {
    rows: { type: 'string', default: '256' },
    cols: { type: 'string', default: '64' },
    splits: { type: 'string', default: '1,4,16,256' },
    dir: { type: 'string' },
  },
});
const ROWS = Number(opts.rows);
const COLS = Number(opts.cols);
const SPLITS = opts.splits.split(',').map(Number);
const CHANGED: number[] = [Math.floor(ROWS / 2) + 1, Math.floor(COLS / 2) + 1];

function configFor(splits: number): RepositoryConfig {
  const perDim = Math.round(Math.sqrt(splits));
  if (perDim * perDim !== splits) throw new Error(`--splits: ${splits} is not a square`);
  if (splits === 1) return {};
  return {
    manifest: { splitting: { split_sizes: [['any_array', [
      { condition: { Axis: 0 }, num_chunks: Math.ceil(ROWS / perDim) },
      { condition: { Axis: 1 }, num_chunks: Math.ceil(COLS / perDim) },
    ]]] } },
  };
}

const metadata = {
  zarr_format: 3, node_type: 'array', shape: [ROWS, COLS], data_type: 'int32', fill_value: 0, attributes: {},
  chunk_grid: { name: 'regular', configuration: { chunk_shape: [1, 1] } },
  chunk_key_encoding: { name: 'default', configuration: { separator: '/' } },
  codecs: [{ name: 'bytes', configuration: { endian: 'little' } }],
};
const json = (value: unknown) => new TextEncoder().encode(JSON.stringify(value));

type Listing = [string, number][];
function manifestListing(dir: string): Listing {
  const at = path.join(dir, 'manifests');
  return existsSync(at) ? readdirSync(at).map((name): [string, number] => [name, statSync(path.join(at, name)).size]) : [];
}
/** Bytes and count of the files in `after` not in `before`. */
function added(before: Listing, after: Listing): { bytes: number; files: number } {
  const old = new Set(before.map(([name]) => name));
  const fresh = after.filter(([name]) => !old.has(name));
  return { bytes: fresh.reduce((sum, [, size]) => sum + size, 0), files: fresh.length };
}

async function floeRun(dir: string, splits: number) {
  const repo = await Repository.create(Storage.newLocalFilesystem(dir), configFor(splits));
  const session = await repo.writableSession('main');
  await session.store.set('zarr.json', json({ zarr_format: 3, node_type: 'group', attributes: {} }));
  await session.store.set('a/zarr.json', json(metadata));
  for (let r = 0; r < ROWS; r++) {
    for (let c = 0; c < COLS; c++) await session.store.set(`a/c/${r}/${c}`, new Uint8Array(Int32Array.of(r * COLS + c).buffer));
  }
  await session.commit('all chunks');
  const first = manifestListing(dir);
  const next = await repo.writableSession('main');
  await next.store.set(`a/c/${CHANGED.join('/')}`, new Uint8Array(Int32Array.of(-1).buffer));
  await next.commit('one chunk');
  return { first, second: manifestListing(dir) };
}

function referenceRuns(dirs: string[]): { manifests: Listing[] }[] {
  const child = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'test', 'support', 'reference-child.mjs');
  const command = {
    op: 'commit-arrays',
    items: SPLITS.map((splits, k) => ({
      dir: dirs[k], config: configFor(splits), groups: [],
      arrays: [{ path: '/a', metadata, fill: true }],
      followUps: [{ writes: [{ path: '/a', index: CHANGED }] }],
    })),
  };
  const result = spawnSync(process.execPath, ['--import', 'tsx', '--no-warnings', child, JSON.stringify(command)], { encoding: 'utf8', timeout: 1_800_000 });
  const line = result.stdout.trim().split('\n').filter((l) => l.startsWith('{')).pop();
  const reply = line ? (JSON.parse(line) as { ok: boolean; error?: string; value?: { manifests: Listing[] }[] }) : undefined;
  if (!reply?.ok || !reply.value) throw new Error(`reference child failed: ${reply?.error ?? result.stderr.slice(-2000)}`);
  return reply.value;
}

async function main(): Promise<void> {
  const root = opts.dir ?? mkdtempSync(path.join(os.tmpdir(), 'floe-split-amp-'));
  const loadBefore = os.loadavg()[0] ?? 0;
  try {
    const refDirs = SPLITS.map((s) => path.join(root, `ref-${s}`));
    const reference = referenceRuns(refDirs);
    console.log(`${ROWS}x${COLS} chunks (${ROWS * COLS}), one chunk [${CHANGED.join(', ')}] changed in the second commit`);
    console.log('| splits | Floe: manifests written | Floe: bytes / changed chunk | reference: manifests written | reference: bytes / changed chunk | Floe bytes, first commit | reference bytes, first commit |');
    console.log('|---:|---:|---:|---:|---:|---:|---:|');
    for (const [k, splits] of SPLITS.entries()) {
      const floe = await floeRun(path.join(root, `floe-${splits}`), splits);
      const floeSecond = added(floe.first, floe.second);
      const [refFirst = [], refAfter = []] = reference[k]?.manifests ?? [];
      const refSecond = added(refFirst, refAfter);
      const firstBytes = (l: Listing) => added([], l).bytes;
      console.log(`| ${splits} | ${floeSecond.files} | ${floeSecond.bytes} | ${refSecond.files} | ${refSecond.bytes} | ${firstBytes(floe.first)} | ${firstBytes(refFirst)} |`);
    }
    console.log(`load average (1 min): ${loadBefore.toFixed(2)} -> ${(os.loadavg()[0] ?? 0).toFixed(2)} on ${os.cpus().length} cores`);
  } finally {
    if (opts.dir === undefined) rmSync(root, { recursive: true, force: true });
  }
}

await main();
