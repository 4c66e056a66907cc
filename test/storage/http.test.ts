// HTTP storage (issue 30) against a loopback host with the behaviours real hosts have: every
// ranged answer is checked (a server that ignores Range is sliced with one warning, or refused;
// a wrong Content-Range or a compressed range is refused, never returned), 401/403 are typed,
// 429/503 are retried honouring Retry-After, headers stay on their own origin, listing works
// where an S3-style listing is offered and is refused by name where not, writes are READ_ONLY,
// and the repo info file is revalidated with its ETag.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { isFloeError } from '../../src/errors.ts';
import { HttpStorage } from '../../src/engine/storage/http.ts';
import { parseByteranges, rangesCovered } from '../../src/engine/storage/http-ranges.ts';
import { Storage } from '../../src/txn/storage.ts';
import { collect, expectCode } from './contract.ts';
import { startStaticServer, type StaticServer, type StaticServerOptions } from '../support/static-http-server.ts';

const enc = (s: string) => new TextEncoder().encode(s);
const dec = (b: Uint8Array) => new TextDecoder().decode(b);
const ALPHABET = enc('abcdefghijklmnopqrstuvwxyz');

let servers: StaticServer[] = [];
afterEach(async () => {
  await Promise.all(servers.map((s) => s.stop()));
  servers = [];
});

async function serve(options: Partial<StaticServerOptions> = {}): Promise<StaticServer> {
  const objects = options.objects ?? new Map([['a/b.bin', ALPHABET], ['repo', enc('info-v1')], ['empty', new Uint8Array(0)], ['sp ace/ü.bin', enc('unicode')]]);
  const server = await startStaticServer({ prefix: 'bucket/repo/', ...options, objects });
  servers.push(server);
  return server;
}

async function caught(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (err) {
    return err;
  }
  throw new Error('expected a failure');
}

describe('HTTP storage reads', () => {
  it('reads whole objects, ranges, suffixes and past-the-end ranges exactly', async () => {
    const server = await serve();
    const storage = new HttpStorage({ url: server.url });
    expect(dec((await storage.get('a/b.bin'))!.bytes)).toBe('abcdefghijklmnopqrstuvwxyz');
    expect(dec((await storage.get('a/b.bin', { offset: 3, length: 4 }))!.bytes)).toBe('defg');
    expect(dec((await storage.get('a/b.bin', { offset: 20 }))!.bytes)).toBe('uvwxyz');
    expect(dec((await storage.get('a/b.bin', { suffixLength: 5 }))!.bytes)).toBe('vwxyz');
    expect(dec((await storage.get('a/b.bin', { suffixLength: 100 }))!.bytes)).toBe('abcdefghijklmnopqrstuvwxyz');
    expect(dec((await storage.get('a/b.bin', { offset: 24, length: 10 }))!.bytes)).toBe('yz');
    expect((await storage.get('a/b.bin', { offset: 26, length: 3 }))!.bytes.length).toBe(0);
    expect((await storage.get('a/b.bin', { offset: 99 }))!.bytes.length).toBe(0);
    expect((await storage.get('a/b.bin', { offset: 2, length: 0 }))!.bytes.length).toBe(0);
    expect(dec((await storage.get('sp ace/ü.bin'))!.bytes)).toBe('unicode');
    expect(await storage.get('missing')).toBeNull();
    expect((await storage.get('empty'))!.bytes.length).toBe(0);
    const info = await storage.head('a/b.bin');
    expect(info).toMatchObject({ key: 'a/b.bin', size: 26 });
    expect(info!.version).toMatch(/^"/);
    expect(await storage.head('missing')).toBeNull();
    // Every ranged request asked for an uncompressed answer.
    for (const r of server.requests.filter((q) => q.headers.range)) expect(r.headers['accept-encoding']).toMatch(/^identity(, identity)*$/);
  });

  it('slices the whole object when the server ignores Range, warning once, or refuses it when told to', async () => {
    const server = await serve({ ranges: 'ignore' });
    const warnings: string[] = [];
    const storage = new HttpStorage({ url: server.url, onWarning: (m) => warnings.push(m) });
    expect(dec((await storage.get('a/b.bin', { offset: 3, length: 4 }))!.bytes)).toBe('defg');
    expect(dec((await storage.get('a/b.bin', { suffixLength: 2 }))!.bytes)).toBe('yz');
    expect(dec((await storage.get('a/b.bin', { offset: 25 }))!.bytes)).toBe('z');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/ignores Range/);
    const strict = new HttpStorage({ url: server.url, rangeIgnored: 'refuse' });
    const err = await caught(strict.get('a/b.bin', { offset: 3, length: 4 }));
    expect(isFloeError(err, 'STORAGE_ERROR') && err.details.reason).toBe('http-range-ignored');
    expect(dec((await strict.get('a/b.bin'))!.bytes)).toHaveLength(26); // whole reads are fine
  });

  it('refuses a partial answer that is not the range asked for, and a compressed one', async () => {
    const shifted = await serve({ ranges: 'shifted' });
    const err = await caught(new HttpStorage({ url: shifted.url }).get('a/b.bin', { offset: 3, length: 4 }));
    expect(isFloeError(err, 'STORAGE_ERROR') && err.details.reason).toBe('http-range-mismatch');
    const gzip = await serve({ ranges: 'gzip' });
    const err2 = await caught(new HttpStorage({ url: gzip.url }).get('a/b.bin', { offset: 3, length: 4 }));
    expect(isFloeError(err2, 'STORAGE_ERROR') && err2.details.reason).toBe('http-encoded-range');
  });

  it('refuses a body longer than its Content-Range, reading no more than it expects', async () => {
    const server = await serve({
      hook: (req, res, key) => {
        if (key !== 'a/b.bin' || !req.headers.range) return false;
        res.writeHead(206, { 'content-range': 'bytes 0-3/26' }); // no length: chunked, and too long
        res.end(ALPHABET);
        return true;
      },
    });
    const err = await caught(new HttpStorage({ url: server.url }).get('a/b.bin', { offset: 0, length: 4 }));
    expect(isFloeError(err, 'STORAGE_ERROR') && err.details.reason).toBe('http-range-mismatch');
  });

  it('refuses a whole object past maxBytes from its Content-Length, and an endless body once it passes the bound', async () => {
    let sent = 0;
    let streamClosed!: () => void;
    const closed = new Promise<void>((resolve) => (streamClosed = resolve));
    const server = await serve({
      hook: (req, res, key) => {
        if (key !== 'endless') return false;
        res.writeHead(200, { 'content-type': 'application/octet-stream' }); // chunked: no length
        const piece = new Uint8Array(64 * 1024);
        const pump = (): void => {
          // At most 256 MiB, so a reader that never stops still ends the test.
          while (!res.destroyed && sent < 256 * 2 ** 20 && res.write(piece)) sent += piece.length;
          if (sent >= 256 * 2 ** 20) res.end();
        };
        res.on('drain', pump);
        res.on('close', streamClosed);
        pump();
        return true;
      },
    });
    const storage = new HttpStorage({ url: server.url });
    const declared = await caught(storage.get('a/b.bin', undefined, { maxBytes: 25 }));
    expect(isFloeError(declared, 'LIMIT_EXCEEDED') && declared.details).toMatchObject({ kind: 'encoded-bytes', limit: 25, actual: 26 });
    expect((await storage.get('a/b.bin', undefined, { maxBytes: 26 }))?.bytes.length).toBe(26);
    expect((await storage.get('a/b.bin', { offset: 0, length: 26 }, { maxBytes: 1 }))?.bytes.length).toBe(26);
    const endless = await caught(storage.get('endless', undefined, { maxBytes: 1_000_000 }));
    expect(isFloeError(endless, 'LIMIT_EXCEEDED') && endless.details).toMatchObject({ kind: 'encoded-bytes', limit: 1_000_000 });
    await closed;
    expect(sent).toBeLessThan(64 * 2 ** 20); // the reader hung up long before the server's 256 MiB
  });

  it('finds the size from a ranged GET when HEAD has no Content-Length', async () => {
    const server = await serve({ headLength: false });
    expect((await new HttpStorage({ url: server.url }).head('a/b.bin'))?.size).toBe(26);
    expect((await new HttpStorage({ url: server.url }).head('empty'))?.size).toBe(0);
  });

  it('says 401 and 403 with typed errors, and sends its headers only to its own origin', async () => {
    const server = await serve({ token: 'sesame', forbidden: (key) => key === 'a/b.bin' });
    const anonymous = await caught(new HttpStorage({ url: server.url }).get('repo'));
    expect(isFloeError(anonymous, 'UNAUTHORIZED') && anonymous.details).toMatchObject({ reason: 'http-unauthorized', status: 401 });
    const storage = new HttpStorage({ url: server.url, headers: { authorization: 'Bearer sesame' } });
    expect(dec((await storage.get('repo'))!.bytes)).toBe('info-v1');
    const forbidden = await caught(storage.get('a/b.bin'));
    expect(isFloeError(forbidden, 'UNAUTHORIZED') && forbidden.details).toMatchObject({ reason: 'http-forbidden', status: 403 });

    // A redirect to another origin is followed without the headers; one on the origin keeps them.
    const elsewhere = await serve({ prefix: 'mirror/', objects: new Map([['x', enc('moved')]]) });
    const redirecting = await serve({
      hook: (_req, res, key) => {
        if (key === 'far') res.writeHead(302, { location: `${elsewhere.url}x` });
        else if (key === 'near') res.writeHead(301, { location: '/bucket/repo/repo' });
        else return false;
        res.end();
        return true;
      },
      token: 'sesame',
    });
    const secret = new HttpStorage({ url: redirecting.url, headers: { authorization: 'Bearer sesame', 'x-api-key': 'k' } });
    expect(dec((await secret.get('far'))!.bytes)).toBe('moved');
    expect(elsewhere.requests).toHaveLength(1);
    expect(elsewhere.requests[0]!.headers.authorization).toBeUndefined();
    expect(elsewhere.requests[0]!.headers['x-api-key']).toBeUndefined();
    expect(dec((await secret.get('near'))!.bytes)).toBe('info-v1');
  });

  it('retries 429 and 503 through Storage.newHttp, waiting at least the Retry-After asked for', async () => {
    let failures = 2;
    const server = await serve({
      hook: (_req, res, key) => {
        if (key !== 'a/b.bin' || failures === 0) return false;
        failures -= 1;
        res.writeHead(failures === 1 ? 429 : 503, { 'retry-after': '1' });
        res.end();
        return true;
      },
    });
    const delays: number[] = [];
    const storage = Storage.newHttp(server.url, { retries: { onRetry: ({ delayMs }) => delays.push(delayMs), maxAttempts: 4 } }).backend;
    expect(dec((await storage.get('a/b.bin', { offset: 0, length: 3 }))!.bytes)).toBe('abc');
    expect(delays).toHaveLength(2);
    for (const d of delays) expect(d).toBeGreaterThanOrEqual(1000);
  });

  it('gives up at once when the server asks to wait longer than maxRetryAfterMs', async () => {
    const server = await serve({
      hook: (_req, res) => {
        res.writeHead(503, { 'retry-after': '3600' });
        res.end();
        return true;
      },
    });
    const storage = Storage.newHttp(server.url, { retries: { maxRetryAfterMs: 5000 } }).backend;
    const err = await caught(storage.get('repo'));
    expect(isFloeError(err, 'STORAGE_ERROR') && err.details).toMatchObject({ transient: true, status: 503, retryAfterMs: 3_600_000 });
    expect(server.requests).toHaveLength(1);
  });

  it('times out a request that never answers, and aborts on the caller signal', async () => {
    const stalled = http.createServer(() => undefined); // accepts, never answers
    await new Promise<void>((resolve) => stalled.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(stalled.address() as AddressInfo).port}/r/`;
      await expectCode(new HttpStorage({ url, requestTimeoutMs: 200 }).get('repo'), 'TIMEOUT');
      const controller = new AbortController();
      const pending = new HttpStorage({ url }).get('repo', undefined, { signal: controller.signal });
      setTimeout(() => controller.abort(), 50);
      await expectCode(pending, 'ABORTED');
    } finally {
      stalled.closeAllConnections();
      await new Promise<void>((resolve) => stalled.close(() => resolve()));
    }
  });

  it('revalidates the repo info file with its ETag (304 reuses the bytes), and never immutable objects', async () => {
    const server = await serve();
    const storage = new HttpStorage({ url: server.url });
    const first = await storage.get('repo');
    const second = await storage.get('repo');
    expect(dec(second!.bytes)).toBe('info-v1');
    expect(second!.version).toBe(first!.version);
    const repoRequests = server.requests.filter((r) => r.url.endsWith('/repo'));
    expect(repoRequests[0]!.headers['if-none-match']).toBeUndefined();
    expect(repoRequests[1]!.headers['if-none-match']).toBe(first!.version);
    await storage.get('a/b.bin');
    await storage.get('a/b.bin');
    expect(server.requests.filter((r) => r.url.endsWith('/a/b.bin')).every((r) => r.headers['if-none-match'] === undefined)).toBe(true);
  });

  it('measures its link: a round trip and a transfer rate once a sizeable body arrived', async () => {
    const big = new Uint8Array(256 * 1024).fill(3);
    const server = await serve({ objects: new Map([['big', big]]) });
    const storage = new HttpStorage({ url: server.url });
    expect(storage.linkEstimate()).toBeUndefined();
    await storage.get('big', { offset: 0, length: 100 });
    expect(storage.linkEstimate()).toBeUndefined(); // 100 bytes say nothing of the rate
    await storage.get('big');
    const link = storage.linkEstimate();
    expect(link!.roundTripMs).toBeGreaterThan(0);
    expect(link!.bytesPerMs).toBeGreaterThan(0);
  });

  it('versions answers without an ETag by Last-Modified', async () => {
    const server = await serve({ etags: false });
    const got = await new HttpStorage({ url: server.url }).get('a/b.bin');
    expect(got!.version).toBe('last-modified:Fri, 02 Jan 2026 03:04:05 GMT');
  });

  it('refuses every write with READ_ONLY, sending nothing', async () => {
    const server = await serve();
    const storage = new HttpStorage({ url: server.url });
    await expectCode(storage.put('x', enc('y')), 'READ_ONLY');
    await expectCode(storage.copy('repo', 'x'), 'READ_ONLY');
    await expectCode(storage.delete(['repo']), 'READ_ONLY');
    expect(server.requests).toHaveLength(0);
  });

  it('refuses bad URLs and options, and keys that would escape the base', async () => {
    expect(() => new HttpStorage({ url: 'ftp://x/y' })).toThrow(/http:\/\/ or https:\/\//);
    expect(() => new HttpStorage({ url: 'https://user:pw@host/r' })).toThrow(/credentials/);
    expect(() => new HttpStorage({ url: 'https://host/r?x=1' })).toThrow(/query/);
    expect(() => new HttpStorage({ url: 'https://host/r', headers: { 'bad name': 'x' } })).toThrow(/header/);
    expect(() => new HttpStorage({ url: 'https://host/r', headers: { ok: 'a\r\nb' } })).toThrow(/header/);
    const server = await serve();
    const storage = new HttpStorage({ url: server.url });
    await expectCode(storage.get('../etc/passwd'), 'INVALID_KEY');
    await expectCode(storage.get('a/%2e%2e/x'), 'INVALID_KEY');
    expect(server.requests).toHaveLength(0);
  });
});

describe('HTTP multi-range reads', () => {
  const wanted = [{ offset: 1, length: 2 }, { offset: 10, length: 3 }, { offset: 20, length: 6 }];
  const expected = ['bc', 'klm', 'uvwxyz'];

  it('reads several ranges in one request from a host that sends multipart/byteranges', async () => {
    const server = await serve();
    const storage = new HttpStorage({ url: server.url });
    expect((await storage.getRanges('a/b.bin', wanted))!.bytes.map(dec)).toEqual(expected);
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]!.headers.range).toBe('bytes=1-2,10-12,20-25');
    expect(storage.multiRange).toBe(true);
    expect(await storage.getRanges('missing', wanted)).toBeNull();
  });

  it('falls back to one range at a time where the host answers only the first, or sends the whole object', async () => {
    for (const ranges of ['first-only', 'ignore'] as const) {
      const server = await serve({ ranges });
      const storage = new HttpStorage({ url: server.url, onWarning: () => undefined });
      expect((await storage.getRanges('a/b.bin', wanted))!.bytes.map(dec), ranges).toEqual(expected);
      expect(storage.multiRange, ranges).toBe(false);
    }
  });

  it('takes from a multipart body exactly the bytes each part declares, and refuses malformed ones', () => {
    const enc8 = (s: string) => new TextEncoder().encode(s);
    const body = enc8('\r\n--B\r\nContent-Range: bytes 0-3/10\r\n\r\n--B\r\r\n--B\r\ncontent-range: bytes 6-7/10\r\n\r\nxy\r\n--B--\r\n');
    const parts = parseByteranges(body, 'B')!;
    expect(parts.map((p) => [p.start, p.end, dec(p.bytes)])).toEqual([[0, 3, '--B\r'], [6, 7, 'xy']]); // data holding the boundary is data
    expect(rangesCovered([{ offset: 6, length: 2 }, { offset: 1, length: 2 }], parts)!.map(dec)).toEqual(['xy', '-B']);
    expect(rangesCovered([{ offset: 4, length: 2 }], parts)).toBeUndefined(); // not inside one part
    for (const bad of ['--B\r\nContent-Range: bytes 0-9/10\r\n\r\nshort\r\n--B--', '--B\r\n\r\nno range\r\n--B--', 'no delimiter', '--B\r\nContent-Range: bytes 0-1/2\r\n\r\nab--B--']) {
      expect(parseByteranges(enc8(bad), 'B'), bad).toBeUndefined();
    }
    expect(rangesCovered([{ offset: 0, length: 1 }], [{ start: 0, end: 0, total: 1, bytes: enc8('a') }, { start: 0, end: 0, total: 2, bytes: enc8('a') }])).toBeUndefined(); // sizes disagree
  });
});

describe('HTTP storage listing', () => {
  const many = new Map<string, Uint8Array>(Array.from({ length: 25 }, (_, i) => [`refs/branch.b${String(i).padStart(2, '0')}/ref.json`, enc(`r${i}`)] as const));
  many.set('config.yaml', enc('c'));
  many.set('snapshots/AAAA', enc('s'));

  it('lists through an S3-style XML listing, across pages, and one level with listDir', async () => {
    const server = await serve({ objects: many, listing: true, pageSize: 7 });
    const storage = new HttpStorage({ url: server.url });
    const refs = await collect(storage.list('refs/'));
    expect(refs.map((r) => r.key)).toEqual([...many.keys()].filter((k) => k.startsWith('refs/')).sort());
    expect(refs[0]).toMatchObject({ size: 2 });
    const after = await collect(storage.list('refs/', { startAfter: 'refs/branch.b20/ref.json' }));
    expect(after.map((r) => r.key)).toEqual(['refs/branch.b21/ref.json', 'refs/branch.b22/ref.json', 'refs/branch.b23/ref.json', 'refs/branch.b24/ref.json']);
    const top = await storage.listDir('');
    expect(top.objects.map((o) => o.key)).toEqual(['config.yaml']);
    expect(top.prefixes).toEqual(['refs/', 'snapshots/']);
  });

  it('refuses listing by name where the host offers none, and still reads known keys', async () => {
    const server = await serve({ objects: many });
    const storage = new HttpStorage({ url: server.url });
    const err = await caught(collect(storage.list('refs/')));
    expect(isFloeError(err, 'UNSUPPORTED') && err.details.reason).toBe('http-listing-unavailable');
    expect((err as Error).message).toMatch(/spec-1 repositories/);
    expect(dec((await storage.get('config.yaml'))!.bytes)).toBe('c');
    const none = new HttpStorage({ url: server.url, listing: 'none' });
    await expectCode(none.listDir(''), 'UNSUPPORTED');
  });

  it('treats a listing answer that is not a ListBucketResult as no listing, and bad XML as an error', async () => {
    const server = await serve({
      objects: many,
      hook: (req, res) => {
        if (!req.url?.includes('list-type=2')) return false;
        res.writeHead(200, { 'content-type': 'application/xml' });
        res.end(req.url.includes('max-keys=1') ? '<Error><Code>AccessDenied</Code></Error>' : '<ListBucketResult><Contents><Key>x');
        return true;
      },
    });
    await expectCode(collect(new HttpStorage({ url: server.url }).list('')), 'UNSUPPORTED');
    const given = new HttpStorage({ url: server.url, listing: { bucketUrl: `${server.origin}/bucket/`, prefix: 'repo/' } });
    await expectCode(collect(given.list('')), 'STORAGE_ERROR');
  });
});
