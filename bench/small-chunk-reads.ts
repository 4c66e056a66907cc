// Warm reads of many small chunks from local files (issue 27: the cost of opening each chunk
// file without following links). A plain directory store and a repository session (one object
// per chunk) hold the same int32 array of 4x4 chunks; each round reads the whole array (every
// chunk's file opened once) with the decoded-chunk cache off, so every read goes to the file.
//
//   npx tsx bench/small-chunk-reads.ts [--side 256] [--rounds 15]
//
// Prints the median and min ms per full read and per chunk for each store.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { openStore } from '../src/engine/api.ts';
import { ZarrArray } from '../src/engine/array.ts';
import { Repository, Storage } from '../src/txn/index.ts';

const { values: opts } = parseArgs({ options: { side: { type: 'string', default: '256' }, rounds: { type: 'string', default: '15' } } });
const side = Number(opts.side);
const rounds = Number(opts.rounds);
const chunks = (side / 4) ** 2;
const values = Int32Array.from({ length: side * side }, (_, i) => i);
const dir = mkdtempSync(path.join(os.tmpdir(), 'floe-small-reads-'));

async function timeReads(array: ZarrArray): Promise<number[]> {
  const times: number[] = [];
  for (let r = 0; r < rounds + 2; r++) {
    const started = process.hrtime.bigint();
    const got = await array.get();
    times.push(Number(process.hrtime.bigint() - started) / 1e6);
    if ((got.data as Int32Array)[side * side - 1] !== side * side - 1) throw new Error('read back wrong data');
  }
  return times.slice(2).sort((a, b) => a - b); // the first two warm the page cache and the code
}

function report(label: string, times: number[]): void {
  const median = times[Math.floor(times.length / 2)]!;
  console.log(`| ${label} | ${chunks} | ${median.toFixed(1)} | ${times[0]!.toFixed(1)} | ${((median * 1000) / chunks).toFixed(2)} |`);
}

try {
  const plain = openStore(path.join(dir, 'plain'), { decodedChunkBytes: 0 });
  const a = await ZarrArray.create(plain, '/a', { shape: [side, side], chunkShape: [4, 4], dataType: 'int32', fillValue: 0 });
  await a.set(undefined, values);
  const repo = await Repository.create(Storage.newLocalFilesystem(path.join(dir, 'repo')), { inlineChunkThresholdBytes: 0 }, 2, {}, {
    chunkPacking: false, cache: { decodedChunkBytes: 1 }, // 0 is refused here; 1 byte keeps no chunk
  });
  const session = await repo.writableSession('main');
  const b = await ZarrArray.create(session.store, '/a', { shape: [side, side], chunkShape: [4, 4], dataType: 'int32', fillValue: 0 });
  await b.set(undefined, values);
  await session.commit('data');
  const readonly = await repo.readonlySession({ branch: 'main' });
  const plainTimes = await timeReads(await ZarrArray.open(openStore(path.join(dir, 'plain'), { decodedChunkBytes: 0 }), '/a'));
  const repoTimes = await timeReads(await ZarrArray.open(readonly.store, '/a'));
  console.log('| store | chunks | median ms | min ms | µs per chunk (median) |\n|---|---|---|---|---|');
  report('plain directory store', plainTimes);
  report('repository session', repoTimes);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
