// Crash safety: a writer killed with SIGKILL at random points during commit never leaves the
// branch on a missing or partial snapshot; the repository opens and every acknowledged commit
// reads back. Trials kill either after a random delay or at an exact storage write of the commit
// sequence (FLOE_CRASH_AT_PUT). The worker is bundled once with esbuild so each trial starts a
// plain `node` process (~0.3 s of CPU) instead of a TypeScript loader (~0.6 s); packages stay
// external (the S3 backend loads its SDK only on its first request).
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ZarrArray } from '../../src/engine/array.ts';
import { Repository, Storage } from '../../src/txn/index.ts';
import { int32, readArray } from './conflict-fixtures.ts';
import { bundledWorker } from '../support/bundled-worker.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const scratch = mkdtempSync(path.join(tmpdir(), 'floe-crash-'));
const worker = bundledWorker(path.join(here, 'crash-worker.ts'), 'floe-crash-test');
const bundle = worker.path;
const TRIALS_PER_LANE = 50;
const LANES = 2;
const PUTS_PER_COMMIT = 6; // chunk object, manifest x2, transaction log, snapshot, repo-info backup, repo info: K in 1..8 covers them

beforeAll(async () => {
  await worker.build();
});
afterAll(() => {
  rmSync(scratch, { recursive: true, force: true });
  worker.remove();
});

/** xorshift: reproducible trial plans (the seed is printed on failure). */
function rng(seed: number) {
  let x = seed || 1;
  return () => {
    x ^= x << 13; x ^= x >>> 17; x ^= x << 5;
    return ((x >>> 0) % 1_000_000) / 1_000_000;
  };
}

interface Trial { acked: { snapshot: string; value: number }[]; killedBy: string }

function runTrial(dir: string, kill: { atPut: number } | { afterMs: number }): Promise<Trial> {
  return new Promise((resolve, reject) => {
    const env = { ...process.env, ...('atPut' in kill ? { FLOE_CRASH_AT_PUT: String(kill.atPut) } : {}) };
    const child = spawn(process.execPath, ['--no-warnings', bundle, dir], { stdio: ['ignore', 'pipe', 'pipe'], env });
    let out = '';
    let err = '';
    let timer: NodeJS.Timeout | undefined;
    // A hard cap: a child that neither dies nor gets killed fails the test instead of hanging it.
    const cap = setTimeout(() => child.kill('SIGKILL'), 20_000);
    child.stdout.on('data', (d: Buffer) => {
      out += d;
      if (timer === undefined && 'afterMs' in kill && out.includes('ready\n')) timer = setTimeout(() => child.kill('SIGKILL'), kill.afterMs);
    });
    child.stderr.on('data', (d: Buffer) => (err += d));
    child.on('close', (code, signal) => {
      clearTimeout(cap);
      clearTimeout(timer);
      if (signal !== 'SIGKILL') return reject(new Error(`crash worker ended without being killed (code ${code}): ${err.slice(-1500)}`));
      const acked = out.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as { snapshot: string; value: number });
      resolve({ acked, killedBy: 'atPut' in kill ? `put ${kill.atPut}` : `${kill.afterMs} ms` });
    });
  });
}

async function createRepository(dir: string) {
  const repo = await Repository.create(Storage.newLocalFilesystem(dir));
  const s = await repo.writableSession('main');
  await ZarrArray.create(s.store, '/small', int32);
  await ZarrArray.create(s.store, '/big', { shape: [1024], chunkShape: [256], dataType: 'int32', fillValue: 0 } as never);
  await s.commit('setup', { metadata: { n: 0 } });
}

/** The repository opens, the branch tip is a complete snapshot, and these commits read back. */
async function checkReadable(dir: string, acked: { snapshot: string; value: number }[]) {
  const repo = await Repository.open(Storage.newLocalFilesystem(dir));
  const tip = await repo.readonlySession({ branch: 'main' });
  await readArray(tip, '/small');
  await readArray(tip, '/big');
  const history = new Set<string>();
  for await (const s of repo.ancestry({ branch: 'main' })) history.add(s.id);
  for (const { snapshot, value } of acked) {
    expect(history.has(snapshot)).toBe(true);
    const s = await repo.readonlySession({ snapshotId: snapshot });
    expect((await readArray(s, '/small'))[4 * (value % 2)]).toBe(value);
    expect((await readArray(s, '/big'))[256 * (value % 4)]).toBe(value);
  }
  return history;
}

describe('crash safety', () => {
  it(`${TRIALS_PER_LANE * LANES} writers killed with SIGKILL mid-commit leave a consistent repository`, async () => {
    const seed = Date.now() % 100_000;
    const random = rng(seed);
    const lanes = Array.from({ length: LANES }, (_, i) => path.join(scratch, `lane-${i}`));
    for (const dir of lanes) await createRepository(dir);
    const plans = lanes.map(() =>
      Array.from({ length: TRIALS_PER_LANE }, (_, t) =>
        t % 2 === 0 ? { atPut: 1 + Math.floor(random() * (PUTS_PER_COMMIT + 2) * 2) } : { afterMs: Math.floor(random() * 120) },
      ),
    );
    const byKind = { atPut: 0, afterMs: 0 };
    const acked = await Promise.all(
      lanes.map(async (dir, lane) => {
        const all: { snapshot: string; value: number }[] = [];
        for (const plan of plans[lane]!) {
          const trial = await runTrial(dir, plan);
          byKind['atPut' in plan ? 'atPut' : 'afterMs']++;
          all.push(...trial.acked);
          // After every kill: the repository opens and this trial's acknowledged commits read back.
          await checkReadable(dir, trial.acked).catch((e: unknown) => {
            throw new Error(`seed ${seed}, lane ${lane}, killed by ${trial.killedBy}: ${String(e)}`);
          });
        }
        return all;
      }),
    );
    // At the end: every commit acknowledged in any trial is on the branch and reads back.
    for (const [lane, dir] of lanes.entries()) {
      const history = await checkReadable(dir, acked[lane]!);
      expect(history.size).toBeGreaterThanOrEqual(acked[lane]!.length + 2);
    }
    expect(byKind.atPut + byKind.afterMs).toBeGreaterThanOrEqual(100);
    console.log(`crash trials: ${byKind.atPut} killed at a storage write, ${byKind.afterMs} after a random delay; ${acked.flat().length} commits acknowledged (seed ${seed})`);
  }, 150_000);
});
