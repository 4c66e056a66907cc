// Issue 17 stage 3: the query server's limits, one at a time and in-process: the memory budget
// (queue, 503 with Retry-After, 413 past it), plan limits on huge grids, malformed URLs and
// bodies, deep JSON, body/URL/header sizes, and the bearer token. test/hostile/serve-abuse
// throws all of it at once at a `floe serve` child and watches its RSS.
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ZarrArray } from '../../src/engine/array.ts';
import type { ZarrStore } from '../../src/engine/store.ts';
import { limitFlag } from '../../src/cli/commands/serve.ts';
import { createQueryServer, type QueryServerOptions } from '../../src/query/http.ts';
import { resolveServerLimits, SERVER_LIMITS } from '../../src/query/http-limits.ts';
import { MemoryBudget } from '../../src/query/memory-budget.ts';
import { weatherStore } from './support.ts';

async function store(): Promise<ZarrStore> {
  const s = await weatherStore();
  await ZarrArray.create(s, '/big', { shape: [100_000, 100_000], chunkShape: [1, 1], dataType: 'uint8', dimensionNames: ['y', 'x'] });
  await ZarrArray.create(s, '/d32', { shape: Array(32).fill(2), chunkShape: Array(32).fill(1), dataType: 'uint8', dimensionNames: Array.from({ length: 32 }, (_, i) => `d${i}`) });
  return s;
}

/** Runs `body` against a query server with `options`, closing it afterwards. */
async function withServer(options: QueryServerOptions, body: (base: string) => Promise<void>, source?: ZarrStore): Promise<void> {
  const server = createQueryServer(source ?? (await store()), { onServerError: (err) => { throw err; }, ...options });
  const base = await server.listen(0, '127.0.0.1');
  try {
    await body(base);
  } finally {
    await server.close();
  }
}

const post = (base: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${base}/query`, { method: 'POST', body: typeof body === 'string' ? body : JSON.stringify(body), headers: { 'content-type': 'application/json', ...headers } });

async function errorOf(res: Response): Promise<{ status: number; code: string; message: string }> {
  const { error } = (await res.json()) as { error: { code: string; message: string } };
  return { status: res.status, ...error };
}

/** A raw request (fetch would refuse or fix these): status and headers of the answer. */
function raw(base: string, path: string, options: { method?: string; headers?: Record<string, string>; body?: Buffer | string } = {}) {
  return new Promise<{ status: number; headers: Record<string, unknown>; body: string }>((resolve, reject) => {
    const req = request(`${base}${path}`, { method: options.method ?? 'GET', headers: options.headers }, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

describe('memory budget', () => {
  it('grants in arrival order, queues past the budget, and turns waiters away after their wait', async () => {
    const budget = new MemoryBudget(100);
    const first = await budget.reserve(60, 0);
    expect(first.kind).toBe('granted');
    expect(await budget.reserve(101, 1_000)).toEqual({ kind: 'too-large' });
    expect(await budget.reserve(50, 10)).toEqual({ kind: 'busy' });
    const waiting = budget.reserve(50, 5_000);
    const small = budget.reserve(10, 5_000); // fits now, but waits behind the first waiter
    expect(budget.reservedBytes).toBe(60);
    if (first.kind === 'granted') first.release();
    expect((await waiting).kind).toBe('granted');
    expect((await small).kind).toBe('granted');
    expect(budget.reservedBytes).toBe(60);
    const stopped = new AbortController();
    const aborted = budget.reserve(90, 5_000, stopped.signal);
    stopped.abort();
    expect(await aborted).toEqual({ kind: 'busy' });
  });
});

describe('query server limits', () => {
  it('refuses a [1e5, 1e5] grid and a 32-dimension array with 413 from the metadata, query and explain alike', async () => {
    await withServer({}, async (base) => {
      const started = performance.now();
      const big = await errorOf(await post(base, { from: '/big' }));
      expect(big).toMatchObject({ status: 413, code: 'LIMIT_EXCEEDED' });
      expect(big.message).toContain('10000000000 chunks');
      const explain = await errorOf(await fetch(`${base}/explain?q=${encodeURIComponent(JSON.stringify({ from: '/big' }))}`));
      expect(explain).toMatchObject({ status: 413, code: 'LIMIT_EXCEEDED' });
      expect(await errorOf(await post(base, { from: '/d32' }))).toMatchObject({ status: 413, code: 'LIMIT_EXCEEDED' });
      expect(performance.now() - started).toBeLessThan(5_000);
      expect(await errorOf(await post(base, { from: '/temperature', select: Array(1_025).fill('/lat') }))).toMatchObject({ status: 400, message: expect.stringMatching(/more than 1024/) });
      // The server still answers.
      expect((await post(base, { from: '/temperature', ops: [{ whereIndex: ['time', 0, 1] }] })).status).toBe(200);
    });
  });

  it('answers 413 for a query whose estimate is over the whole memory budget, 503 with Retry-After while it is in use', async () => {
    const slow = await store();
    const get = slow.get.bind(slow);
    const getRange = slow.getRange.bind(slow);
    const pause = (key: string) => (key.includes('/c/') ? new Promise((r) => setTimeout(r, 300)) : undefined);
    slow.get = async (key) => (await pause(key), get(key));
    slow.getRange = async (key, range) => (await pause(key), getRange(key, range));
    // About 340 kB by the estimate (result, chunks, bookkeeping): one fits in 500 kB, two do not.
    const q = { from: '/temperature', ops: [{ whereIndex: ['time', 0, 24] }] };
    const binary = { accept: 'application/octet-stream' };
    await withServer({ memoryBudgetBytes: 30_000_000, queueTimeoutMs: 0 }, async (base) => {
      const tooBig = await errorOf(await post(base, { from: '/big', ops: [{ whereIndex: ['y', 0, 100] }, { whereIndex: ['x', 0, 1000] }] }));
      expect(tooBig).toMatchObject({ status: 413, code: 'LIMIT_EXCEEDED' });
      expect(tooBig.message).toMatch(/bytes of memory, over the memoryBudgetBytes limit of 30000000/);
    }, slow);
    await withServer({ memoryBudgetBytes: 500_000, queueTimeoutMs: 0 }, async (base) => {
      const [a, b] = await Promise.all([post(base, q, binary), new Promise((r) => setTimeout(r, 100)).then(() => post(base, q, binary))]);
      expect(a.status).toBe(200);
      expect(b.status).toBe(503);
      expect(b.headers.get('retry-after')).toBe('1');
      expect((await errorOf(b)).code).toBe('BUSY');
      expect((await post(base, q, binary)).status).toBe(200); // released after the first answer
    }, slow);
    await withServer({ memoryBudgetBytes: 500_000, queueTimeoutMs: 5_000 }, async (base) => {
      const answers = await Promise.all([post(base, q, binary), post(base, q, binary), post(base, q, binary)]);
      expect(answers.map((r) => r.status)).toEqual([200, 200, 200]); // queued, one at a time
    }, slow);
  });

  it('answers 400 for malformed URLs, bodies and query JSON, 413/414/415/431 for oversized or encoded requests', async () => {
    await withServer({ maxBodyBytes: 2_000, maxUrlBytes: 600, maxHeaderBytes: 4_096, maxJsonDepth: 8 }, async (base) => {
      expect((await raw(base, '/explain?q=%ZZ')).status).toBe(400);
      expect((await raw(base, '/query%ZZ', { method: 'POST' })).status).toBe(400); // a route would answer 404
      expect((await raw(base, '/%E0%A4%A')).status).toBe(400);
      expect((await raw(base, '/query%FF', { method: 'POST' })).status).toBe(400); // not UTF-8
      const deep = '['.repeat(5_000) + ']'.repeat(5_000);
      const deepBody = await errorOf(await post(base, `{"from": "/temperature", "ops": ${deep}}`.slice(0, 1_900)));
      expect(deepBody).toMatchObject({ status: 400, code: 'INVALID_ARGUMENT' });
      expect(deepBody.message).toMatch(/nested deeper than 8 levels/);
      const deepLabel = { from: '/temperature', ops: [{ where: ['lat', '=', JSON.parse('['.repeat(7) + ']'.repeat(7)) as unknown] }] };
      expect((await post(base, deepLabel)).status).toBe(400);
      expect((await raw(base, `/explain?q=${encodeURIComponent('['.repeat(100))}`)).status).toBe(400);
      expect((await post(base, '{"from": "/temperature", "ops": [{"__proto__": ["x"]}]}')).status).toBe(400);
      expect((await post(base, '{"from": "/temperature", "ops": [{"toString": []}]}')).status).toBe(400);
      expect((await raw(base, '/query', { method: 'POST', body: Buffer.from([0x7b, 0xff, 0x7d]) })).status).toBe(400);
      expect((await post(base, { from: '/temperature', select: Array(2_000).fill('a') })).status).toBe(413); // body limit first
      expect((await raw(base, '/query', { method: 'POST', headers: { 'content-encoding': 'gzip' }, body: '{}' })).status).toBe(415);
      expect((await raw(base, `/explain?q=${'a'.repeat(700)}`)).status).toBe(414);
      expect((await raw(base, '/query', { headers: { 'x-filler': 'a'.repeat(5_000) } })).status).toBe(431);
    });
  });

  it('checks a bearer token in constant time: 401 without it or with a wrong one, then answers', async () => {
    await withServer({ token: 'correct-horse' }, async (base) => {
      const q = { from: '/temperature', ops: [{ whereIndex: ['time', 0, 1] }] };
      const missing = await post(base, q);
      expect(missing.status).toBe(401);
      expect(missing.headers.get('www-authenticate')).toBe('Bearer realm="floe"');
      const wrong = await post(base, q, { authorization: 'Bearer correct-horsE' });
      expect(wrong.status).toBe(401);
      expect(wrong.headers.get('www-authenticate')).toContain('error="invalid_token"');
      expect((await post(base, q, { authorization: 'Bearer correct-horse-battery' })).status).toBe(401);
      expect((await post(base, q, { authorization: 'Basic correct-horse' })).status).toBe(401);
      expect((await post(base, q, { authorization: 'Bearer correct-horse' })).status).toBe(200);
    });
    expect(() => createQueryServer({} as ZarrStore, { token: 'has space' })).toThrow(/printable ASCII/);
  });

  it('refuses limits that do not make sense', () => {
    expect(() => createQueryServer({} as ZarrStore, { maxConnections: 0 })).toThrow(/maxConnections must be a whole number of at least 1/);
    expect(() => createQueryServer({} as ZarrStore, { headersTimeoutMs: 5_000, requestTimeoutMs: 1_000 })).toThrow(/must not exceed requestTimeoutMs/);
    expect(() => createQueryServer({} as ZarrStore, { timeoutMs: 10_000, idleTimeoutMs: 5_000 })).toThrow(/idleTimeoutMs .* must exceed timeoutMs/);
    // A default follows the limit it depends on when only that one is given.
    expect(resolveServerLimits({ timeoutMs: 300_000 })).toMatchObject({ timeoutMs: 300_000, idleTimeoutMs: 301_000 });
    expect(resolveServerLimits({ headersTimeoutMs: 60_000 })).toMatchObject({ headersTimeoutMs: 60_000, requestTimeoutMs: 60_000 });
  });
});

describe('docs/serving.md', () => {
  it('lists every limit with its floe serve flag and its default, and nothing else', () => {
    const doc = readFileSync(path.resolve(import.meta.dirname, '../../docs/serving.md'), 'utf8');
    const rows = doc.split('\n').filter((line) => /^\| `[a-zA-Z]+` \| `--/.test(line));
    expect(rows.map((r) => /^\| `(\w+)`/.exec(r)?.[1])).toEqual(Object.keys(SERVER_LIMITS));
    for (const [name, spec] of Object.entries(SERVER_LIMITS)) {
      const cells = rows.find((r) => r.startsWith(`| \`${name}\` |`))!.split('|').map((c) => c.trim());
      expect(cells[2]).toBe(`\`--${limitFlag(name)}\``);
      expect(cells[3]!.split(' ')[0]).toBe(String(spec.default));
    }
  });
});
