import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createQueryServer, type QueryServer } from '../../src/query/http.ts';
import { decodeBinary } from '../../src/query/result-encoding.ts';
import { expectedBox, range, weatherStore } from './support.ts';

let server: QueryServer;
let base: string;

beforeAll(async () => {
  server = createQueryServer(await weatherStore(), { maxResultBytes: 40_000, timeoutMs: 5_000, jsonMaxBytes: 1_000 });
  base = await server.listen(0, '127.0.0.1');
});
afterAll(() => server.close());

const post = (body: unknown, path = '/query', headers: Record<string, string> = {}) =>
  fetch(base + path, { method: 'POST', body: typeof body === 'string' ? body : JSON.stringify(body), headers: { 'content-type': 'application/json', ...headers } });

describe('query server', () => {
  it('answers a small query with JSON', async () => {
    const res = await post({
      from: '/temperature', dtype: 'float32', select: ['lat'],
      ops: [{ where: ['time', 'between', [{ date: '2000-01-01T02:00:00Z' }, { date: '2000-01-01T03:00:00Z' }]] }, { where: ['lat', '>', 75] }, { whereIndex: ['lon', 0, 4, 2] }],
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json');
    const body = (await res.json()) as { arrays: { path: string; shape: number[]; data: number[] }[]; report: { fetched: { unplanned: { requests: number } } } };
    expect(body.arrays[0]!.shape).toEqual([2, 2, 2]);
    expect(body.arrays[0]!.data).toEqual(expectedBox([2, 3], [0, 1], [0, 2]));
    expect(body.arrays[1]).toMatchObject({ path: '/lat', data: [90, 80] });
    expect(body.report.fetched.unplanned.requests).toBe(0);
  });

  it('answers a larger query with the binary form', async () => {
    const res = await post({ from: '/temperature', ops: [{ whereIndex: ['time', 10, 20] }, { stride: ['lon', 3] }] });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/vnd.floe.query-result');
    const { header, body } = decodeBinary(new Uint8Array(await res.arrayBuffer()));
    const entry = header.arrays[0]!;
    expect(entry).toMatchObject({ path: '/temperature', dtype: 'float32', shape: [10, 19, 12] });
    const copy = body.slice(entry.byteOffset, entry.byteOffset + entry.byteLength);
    const data = new Float32Array(copy.buffer);
    expect(Array.from(data)).toEqual(expectedBox(range(10, 20), range(0, 19), range(0, 36, 3)));
  });

  it('explains a query given in the URL', async () => {
    const q = encodeURIComponent(JSON.stringify({ from: '/temperature', ops: [{ nearest: ['lat', 44, { tolerance: 5 }] }, { whereIndex: ['time', 0, 1] }] }));
    const res = await fetch(`${base}/explain?q=${q}`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { plan: { dims: { name: string; count: number }[]; expected: { requests: number } }; text: string };
    expect(body.plan.dims.map((d) => [d.name, d.count])).toEqual([['time', 1], ['lat', 1], ['lon', 36]]);
    expect(body.text).toContain('.nearest("lat", 44, { tolerance: 5 })  binary-search');
  });

  it.each([
    ['malformed JSON', () => post('{"from": '), 400, 'INVALID_ARGUMENT', /not valid JSON/],
    ['an unknown field', () => post({ from: '/temperature', wher: [] }), 400, 'INVALID_ARGUMENT', /unknown field "wher"/],
    ['an unknown op', () => post({ from: '/temperature', ops: [{ filter: ['lat'] }] }), 400, 'INVALID_ARGUMENT', /each op is one of/],
    ['an unknown dimension', () => post({ from: '/temperature', ops: [{ where: ['depth', '<', 3] }] }), 400, 'INVALID_ARGUMENT', /unknown dimension "depth"/],
    ['a label not found', () => post({ from: '/temperature', ops: [{ where: ['lat', '=', 15] }] }), 404, 'NOT_FOUND', /label 15 not found in dimension "lat"/],
    ['a type mismatch', () => post({ from: '/temperature', ops: [{ where: ['lon', '>', { date: '2000-01-01' }] }] }), 400, 'INVALID_ARGUMENT', /type mismatch on dimension "lon"/],
    ['a result over the limit', () => post({ from: '/temperature' }), 413, 'LIMIT_EXCEEDED', /131328 result bytes, over the maxResultBytes limit of 40000/],
    ['a missing array', () => post({ from: '/salinity' }), 404, 'NOT_FOUND', /no array at \/salinity/],
    ['GET on /query', () => fetch(`${base}/query`), 405, 'METHOD_NOT_ALLOWED', /POST \/query/],
    ['explain without q', () => fetch(`${base}/explain`), 400, 'INVALID_ARGUMENT', /needs \?q=/],
    ['an unknown route', () => fetch(`${base}/nope`), 404, 'NOT_FOUND', /no route \/nope/],
  ])('refuses %s with a clear 4xx', async (_, send, status, code, message) => {
    const res = await send();
    expect(res.status).toBe(status);
    const body = (await res.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe(code);
    expect(body.error.message).toMatch(message);
  });
});

describe('query server time limit', () => {
  it('answers 504 when a query runs past timeoutMs', async () => {
    const slow = await weatherStore();
    const get = slow.get.bind(slow);
    slow.get = async (key) => (await new Promise((r) => setTimeout(r, 200)), get(key));
    const s = createQueryServer(slow, { timeoutMs: 50 });
    const url = await s.listen();
    try {
      const res = await fetch(`${url}/query`, { method: 'POST', body: JSON.stringify({ from: '/temperature' }) });
      expect(res.status).toBe(504);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('TIMEOUT');
    } finally {
      await s.close();
    }
  });
});
