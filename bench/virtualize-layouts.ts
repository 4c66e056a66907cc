// Scanning HDF5 files per chunk index and write pattern (issue 35): for each layout h5py can write
// (version-1 B-tree with libver 'earliest'; single chunk, implicit, fixed array, extensible array
// and version-2 B-tree with 'latest'), a file of --chunks chunks (float32 8 x 8 each) written at
// once or appended one time step at a time where the layout allows it; scanned locally (time, 64 KiB
// blocks read) and over HTTP through nginx behind a proxy adding --delay-ms to every request
// (requests, bytes, time). The chunk refs each scan finds are checked against the chunk count.
//
//   npx tsx bench/virtualize-layouts.ts [--chunks 10000] [--delay-ms 20] [--dir .bench-data/virtualize-layouts]
// Never part of the test suite. Prints a markdown table (BENCHMARKS.md, "Issue 35").
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { openByteSource } from '../src/engine/byte-source.ts';
import { planHdf5 } from '../src/txn/hdf5-scan.ts';
import { Repository, Storage } from '../src/txn/index.ts';
import { virtualize } from '../src/txn/virtualize.ts';
import { startNginx } from '../test/support/loopback-static-hosts.ts';
import { startDelayProxy } from './support/delay-proxy.ts';

const { values: opts } = parseArgs({
  options: {
    chunks: { type: 'string', default: '10000' },
    'delay-ms': { type: 'string', default: '20' },
    dir: { type: 'string' },
  },
});
const ROOT = path.resolve(import.meta.dirname, '..');
const DIR = path.resolve(opts.dir ?? path.join(ROOT, '.bench-data/virtualize-layouts'));
const CHUNKS = Number(opts.chunks);
const DELAY = Number(opts['delay-ms']);

// Each case: h5py's libver, the dataset's shape, max shape and chunks, and how it is written
// ('once', or 'append': grown along its first axis one chunk at a time, metadata interleaved with data).
const WRITER = `
import sys, numpy as np, h5py
path, libver, pattern, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
layout = sys.argv[5]
f = h5py.File(path, 'w', libver=libver)
if layout == 'single':
    d = f.create_dataset('v', shape=(n * 8, 8), chunks=(n * 8, 8), dtype='f4')
    d[...] = np.arange(n * 64, dtype='f4').reshape(n * 8, 8)
elif layout == 'implicit':
    space = h5py.h5s.create_simple((n * 8, 8))
    dcpl = h5py.h5p.create(h5py.h5p.DATASET_CREATE)
    dcpl.set_chunk((8, 8))
    dcpl.set_alloc_time(h5py.h5d.ALLOC_TIME_EARLY)
    h5py.h5d.create(f.id, b'v', h5py.h5t.IEEE_F32LE, space, dcpl=dcpl)
    f['v'][...] = np.arange(n * 64, dtype='f4').reshape(n * 8, 8)
else:
    maxshape = {'fixed': (n * 8, 8), 'extensible': (None, 8), 'btree2': (None, None), 'btree1': (None, 8)}[layout]
    if pattern == 'once':
        d = f.create_dataset('v', shape=(n * 8, 8), maxshape=maxshape, chunks=(8, 8), dtype='f4')
        d[...] = np.arange(n * 64, dtype='f4').reshape(n * 8, 8)
    else:
        d = f.create_dataset('v', shape=(0, 8), maxshape=maxshape, chunks=(8, 8), dtype='f4')
        for i in range(n):
            d.resize((i + 1) * 8, axis=0)
            d[i * 8:(i + 1) * 8] = np.arange(i * 64, (i + 1) * 64, dtype='f4').reshape(8, 8)
f.close()
`;

const CASES: { layout: string; libver: string; pattern: 'once' | 'append'; index: string }[] = [
  { layout: 'btree1', libver: 'earliest', pattern: 'once', index: 'version-1 B-tree' },
  { layout: 'btree1', libver: 'earliest', pattern: 'append', index: 'version-1 B-tree' },
  { layout: 'single', libver: 'latest', pattern: 'once', index: 'single chunk' },
  { layout: 'implicit', libver: 'latest', pattern: 'once', index: 'implicit' },
  { layout: 'fixed', libver: 'latest', pattern: 'once', index: 'fixed array' },
  { layout: 'extensible', libver: 'latest', pattern: 'once', index: 'extensible array' },
  { layout: 'extensible', libver: 'latest', pattern: 'append', index: 'extensible array' },
  { layout: 'btree2', libver: 'latest', pattern: 'once', index: 'version-2 B-tree' },
  { layout: 'btree2', libver: 'latest', pattern: 'append', index: 'version-2 B-tree' },
];

mkdirSync(DIR, { recursive: true });
const load = () => os.loadavg().map((l) => l.toFixed(1)).join(' / ');
const loadBefore = load();
const rows: string[][] = [];
const host = await startNginx(DIR);
const proxy = await startDelayProxy(host.url, DELAY);
try {
  for (const c of CASES) {
    const name = `${c.layout}-${c.libver}-${c.pattern}-${CHUNKS}.h5`;
    const file = path.join(DIR, name);
    if (!existsSync(file)) execFileSync('/usr/bin/python3', ['-c', WRITER, file, c.libver, c.pattern, String(CHUNKS), c.layout], { stdio: ['ignore', 'ignore', 'inherit'] });
    const expected = c.layout === 'single' ? 1 : CHUNKS;
    // Locally: the scanner alone, best of 3, with the bytes it read.
    let best = Infinity;
    let bytes = 0;
    let index = '';
    for (let i = 0; i < 3; i++) {
      const source = await openByteSource(file);
      let read = 0;
      const counting = { ...source, read: async (o: number, l: number) => { const b = await source.read(o, l); read += b.length; return b; } };
      const t0 = performance.now();
      try {
        const plan = await planHdf5(counting, file, {});
        best = Math.min(best, performance.now() - t0);
        bytes = read;
        const refs = plan.arrays.find((a) => a.variable.endsWith('v'))?.refs.length;
        if (refs !== expected) throw new Error(`${name}: ${refs} refs, expected ${expected}`);
        index = plan.chunkIndexes.get('/v') ?? plan.chunkIndexes.get('v') ?? [...plan.chunkIndexes.values()][0] ?? '?';
      } finally {
        await source.close();
      }
    }
    // Over HTTP: virtualize (scan + record) through the delaying proxy, requests counted.
    const repo = await Repository.create(Storage.newInMemory());
    await fetch(`${proxy.url}/__phase/${name}`);
    const t0 = performance.now();
    const session = await repo.writableSession('main');
    await virtualize(session, [`${proxy.url}/${name}`], { repository: repo, addContainers: true });
    const httpMs = performance.now() - t0;
    const count = proxy.phases.get(name);
    rows.push([
      `${c.index} (${index}), ${c.libver}, ${c.pattern === 'once' ? 'written at once' : 'appended a chunk at a time'}`,
      `${(statSync(file).size / 2 ** 20).toFixed(1)} MiB, ${expected} chunks`,
      `${best.toFixed(0)} ms, ${Math.ceil(bytes / 65536)} blocks`,
      `${count?.requests} requests, ${((count?.bytes ?? 0) / 2 ** 20).toFixed(2)} MiB, ${(httpMs / 1000).toFixed(2)} s`,
    ]);
  }
} finally {
  await proxy.close();
  await host.close();
}
console.log(`\n${os.cpus().length} cores; load average (1/5/15 min) before ${loadBefore}, after ${load()}; node ${process.version}; ${DELAY} ms added per HTTP request\n`);
console.log('| chunk index, libver, write pattern | file | local scan (best of 3), 64 KiB blocks read | over HTTP: requests, bytes, time |\n|---|---|---|---|');
for (const r of rows) console.log(`| ${r.join(' | ')} |`);
process.exit(0);
