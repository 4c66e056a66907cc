// docs/distributed.md's example, run as written (issue 32): its first TypeScript block, with the
// package's names pointed at the sources, in a fresh directory against the test's own Redis. It
// must print the commit and leave /temperature holding each task's values.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ZarrArray } from '../../src/engine/array.ts';
import { Repository, Storage } from '../../src/txn/index.ts';
import { startRedis, type RedisServer } from '../support/redis-server.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
const scratch = mkdtempSync(path.join(tmpdir(), 'floe-distributed-doc-'));
let redis: RedisServer;

beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => {
  await redis?.stop();
  rmSync(scratch, { recursive: true, force: true });
});

it('runs the example of docs/distributed.md as written', async () => {
  const doc = readFileSync(path.join(root, 'docs/distributed.md'), 'utf8');
  const example = /## The model[^\n]*\n[\s\S]*?```ts\n([\s\S]*?)```/.exec(doc)?.[1];
  expect(example).toBeDefined();
  const source = example!
    .replace("from 'floe';", `from ${JSON.stringify(path.join(root, 'src/index.ts'))};`)
    .replace("from 'floe/distributed';", `from ${JSON.stringify(path.join(root, 'src/distributed/index.ts'))};`);
  expect(source).not.toContain("'floe");
  writeFileSync(path.join(scratch, 'example.mts'), source);
  const out = await new Promise<string>((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', tsx, '--no-warnings', 'example.mts'], { cwd: scratch, env: { ...process.env, FLOE_REDIS_URL: redis.url }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    const cap = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (code) => {
      clearTimeout(cap);
      if (code === 0) resolve(stdout);
      else reject(new Error(`the example exited with ${code}: ${stderr}`));
    });
  });
  expect(out).toMatch(/^planned: 0\/4 tasks, 0 bytes$/m);
  expect(out).toMatch(/^task-done: 4\/4 tasks, \d+ bytes$/m);
  expect(out).toMatch(/^committed [0-9A-Z]{20}: 4 tasks, \d+ bytes$/m);
  const repo = await Repository.open(Storage.newLocalFilesystem(path.join(scratch, 'ingest.icechunk')));
  const data = (await (await ZarrArray.open((await repo.readonlySession({ branch: 'main' })).store, '/temperature')).get()).data as Float32Array;
  expect([0, 999, 1000, 2500, 3999].map((i) => data[i])).toEqual([20, 20, 21, 22, 23]);
  await repo.close();
}, 90_000);
