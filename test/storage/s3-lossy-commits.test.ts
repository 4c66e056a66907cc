// Issue 36: writer processes commit to one repository on the Ceph gateway through a loopback
// proxy that (a) answers a seeded fraction of requests with 503 SlowDown without passing them on,
// or (b) passes requests on and drops the answers. Afterwards every commit reported done must be
// in main's history exactly once, no commit twice, and every chunk of every snapshot on main must
// read back with its writer's value. Before the fix, (a) acknowledged commits whose chunk pack was
// never stored (the 503's settlement said PRECONDITION_FAILED, which the packer took for "stored").
//   FLOE_S3_LOSSY_WRITERS (default 4) writer processes, FLOE_S3_LOSSY_COMMITS (default 13) commits
//   each, per fault mode; FLOE_S3_LOSSY_SEED fixes the proxy's seed (default: from the clock, printed).
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, expect, it } from 'vitest';
import { ZarrArray } from '../../src/engine/array.ts';
import { slice } from '../../src/engine/selection.ts';
import { S3Storage } from '../../src/engine/storage/s3.ts';
import { Repository, Storage } from '../../src/txn/index.ts';
import { startFaultProxy, type FaultProxy, type ProxyFault } from '../support/fault-proxy.ts';
import { describeWithGateway } from './s3-gate.ts';
import { chunkValues, commitMessage } from './s3-lossy-values.ts';

const WRITERS = Number(process.env.FLOE_S3_LOSSY_WRITERS ?? 4);
const COMMITS = Number(process.env.FLOE_S3_LOSSY_COMMITS ?? 13);
const SEED = Number(process.env.FLOE_S3_LOSSY_SEED ?? Date.now() % 1_000_000);
const CHUNK = 256; // int32 elements: 1 KiB chunks, packed
const FAULT_RATE = 0.05;
// Chunk writes get five times the rate: a 503 to one of them is what lost data before the fix,
// and at 25% a run of 52 pack writes meets one for sure (0.75^52 < 1e-6).
const chunkWrites = (method: string, url: string) => (method === 'PUT' && url.includes('/chunks/') ? 5 : 1);
const DEADLINE_MS = 240_000;
const CHILD = path.join(path.dirname(fileURLToPath(import.meta.url)), 's3-lossy-child.ts');

interface Outcome {
  writer: number;
  m: number;
  message: string;
  outcome: 'ok' | 'error';
  id?: string;
  code?: string;
  error?: string;
}

const children = new Set<ChildProcess>();
const proxies = new Set<FaultProxy>();
afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  await Promise.all([...proxies].map((p) => p.close()));
});

/** Runs one writer to its end (killed past the deadline): its outcome lines. */
function runWriter(job: Record<string, unknown>): Promise<Outcome[]> {
  const child = spawn(process.execPath, ['--import', 'tsx', '--no-warnings', CHILD, JSON.stringify(job)], { stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), DEADLINE_MS + 15_000);
    child.stdout.on('data', (d: Buffer) => (out += d));
    child.stderr.on('data', (d: Buffer) => (err += d));
    child.on('close', (code) => {
      clearTimeout(timer);
      children.delete(child);
      if (code === 0) resolve(out.trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as Outcome));
      else reject(new Error(`writer exited ${code}: ${err.slice(-2000)}`));
    });
  });
}

describeWithGateway('commits on Ceph through a lossy proxy (issue 36)', (target) => {
  const bucket = `floe-lossy-${randomBytes(4).toString('hex')}`;
  const credentials = { accessKeyId: target.accessKeyId, secretAccessKey: target.secretAccessKey };
  const admin = new S3Storage({ bucket, endpoint: target.endpoint, forcePathStyle: true, credentials });
  afterAll(async () => {
    const keys: string[] = [];
    for await (const o of admin.list('')) keys.push(o.key);
    await admin.delete(keys);
    await admin.close();
  });
  const direct = (prefix: string) =>
    Storage.newS3(bucket, prefix, { type: 'Static', field0: credentials }, { endpointUrl: target.endpoint, forcePathStyle: true, unquotedIfMatch: true });

  const modes: { fault: ProxyFault; what: string }[] = [
    { fault: 'slowdown', what: 'answers 5% of requests (25% of chunk writes) 503 SlowDown without passing them on' },
    { fault: 'drop-after', what: 'drops the answers of 5% of requests (25% of chunk writes) after the gateway applied them' },
  ];
  for (const [i, mode] of modes.entries()) {
    it(`${WRITERS} writer processes x ${COMMITS} commits, a proxy that ${mode.what}: every acknowledged commit once, every chunk readable`, async () => {
      await admin.ensureBucket();
      const prefix = `lossy-${mode.fault}`;
      const length = WRITERS * COMMITS * CHUNK;
      {
        const repo = await Repository.create(await direct(prefix));
        const session = await repo.writableSession('main');
        await ZarrArray.create(session.store, '/d', { shape: [length], chunkShape: [CHUNK], dataType: 'int32', fillValue: 0 });
        await session.commit('create /d');
        await repo.close();
      }
      const seed = SEED + i;
      const proxy = await startFaultProxy({ target: target.endpoint, seed, rates: { [mode.fault]: FAULT_RATE }, weight: chunkWrites });
      proxies.add(proxy);
      const started = Date.now();
      let outcomes: Outcome[];
      try {
        const jobs = Array.from({ length: WRITERS }, (_, writer) => ({
          endpoint: proxy.url, bucket, prefix, ...credentials, writer, commits: COMMITS, chunk: CHUNK, deadlineMs: DEADLINE_MS,
        }));
        outcomes = (await Promise.all(jobs.map(runWriter))).flat();
      } finally {
        await proxy.close();
        proxies.delete(proxy);
      }
      const ok = outcomes.filter((o) => o.outcome === 'ok');
      const failed = outcomes.filter((o) => o.outcome === 'error');
      const summary = `seed ${seed}, ${proxy.counts.requests} requests, ${proxy.counts[mode.fault]} ${mode.fault} faults; failed commits: ${JSON.stringify(failed.slice(0, 5))}`;
      console.info(`[lossy ${mode.fault}] ${summary}; ${ok.length} commits acknowledged in ${Date.now() - started} ms`);
      const faulted = proxy.log.map((e) => `#${e.n} ${e.method} ${e.path} ${e.fault}${e.status ? ` (${e.status})` : ''}`);
      const context = `${summary}\nfaulted requests:\n${faulted.join('\n')}`;
      expect(outcomes, context).toHaveLength(WRITERS * COMMITS);
      expect(proxy.counts[mode.fault], `no ${mode.fault} fault was injected: ${context}`).toBeGreaterThan(0);

      // The history, read without the proxy.
      const repo = await Repository.open(await direct(prefix));
      const history: { id: string; message: string }[] = [];
      for await (const s of repo.ancestry({ branch: 'main' })) history.push({ id: s.id, message: s.message });
      history.reverse(); // oldest first
      const messages = history.map((s) => s.message);
      expect(new Set(messages).size, `a commit is in the history twice: ${context}`).toBe(messages.length);
      for (const o of ok) expect(history.filter((s) => s.id === o.id), `${o.message} acknowledged as ${o.id}: ${context}`).toHaveLength(1);

      // Every snapshot on main: each chunk holds the value of the commit that wrote it, if that
      // commit is at or before the snapshot, else the fill value.
      const written = new Map<number, number>(); // chunk index -> history position of its commit
      for (const [at, s] of history.entries()) {
        const match = /^writer (\d+) commit (\d+)$/.exec(s.message);
        if (match) written.set(Number(match[1]) * COMMITS + Number(match[2]), at);
      }
      for (const o of ok) expect(written.has(o.writer * COMMITS + o.m), o.message).toBe(true);
      for (const [at, s] of history.entries()) {
        const session = await repo.readonlySession({ snapshotId: s.id });
        if (at === 0) continue; // the initial snapshot has no /d
        const data = (await (await ZarrArray.open(session.store, '/d')).get([slice(0, length)])).data as Int32Array;
        for (let index = 0; index < WRITERS * COMMITS; index++) {
          const landed = written.get(index);
          const got = data.subarray(index * CHUNK, (index + 1) * CHUNK);
          const want = landed !== undefined && landed <= at ? chunkValues(index, CHUNK) : new Int32Array(CHUNK);
          if (!got.every((v, e) => v === want[e])) {
            expect.fail(`snapshot ${s.id} (${s.message}), chunk ${index}: got ${got.slice(0, 3).join(',')}…, want ${want.slice(0, 3).join(',')}…; ${context}`);
          }
        }
      }
      await repo.close();
      // With retries that outlast the faults, every commit lands: a failure here is a fault
      // mistaken for an answer (before the fix: PRECONDITION_FAILED for a 503 or a lost answer).
      expect(failed, context).toEqual([]);

    }, DEADLINE_MS + 60_000);
  }
});
