// Issue 17, stage 1: a virtual chunk location is matched to its container on normalised URLs and
// whole path segments, so a container's credentials and headers only reach URLs under its
// prefix. Three layers: a table of known attacks, a fast-check property against a model of the
// most lenient server (decodes everything, backslash as slash, resolves dot segments), and a
// loopback server recording every request's path and headers.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isFloeError } from '../../src/errors.ts';
import { ZarrArray } from '../../src/engine/array.ts';
import { Repository, Storage, type VirtualChunkContainer } from '../../src/txn/index.ts';
import { checkContainerExists, containerFor } from '../../src/txn/virtual-chunks.ts';

const URL_PROBES = Number(process.env.FLOE_HOSTILE_URL_PROBES ?? 5000);
const SEED = Number(process.env.FLOE_HOSTILE_SEED ?? 17);

const http = (urlPrefix: string, headers: Record<string, string> = {}): VirtualChunkContainer => ({ urlPrefix, store: { type: 'Http', field0: { headers } } });
const ALLOWED = http('https://host/allowed/', { 'x-secret': 's3cr3t' });
const PUBLIC = http('https://host/public');
const S3 = { urlPrefix: 's3://bucket/allowed/', store: { type: 'S3' as const, field0: {} } };
const S3_BARE = { urlPrefix: 's3://bucket/data', store: { type: 'S3' as const, field0: {} } };
const FILE = { urlPrefix: 'file:///data/allowed/', store: { type: 'LocalFileSystem' as const, field0: '/data/allowed' } };
const CONTAINERS = [ALLOWED, PUBLIC, S3, S3_BARE, FILE];

/** What the most lenient server would serve: origin and resolved path segments (null: not a URL to it). */
function serverView(raw: string): { origin: string; segments: string[] } | null {
  const m = /^([a-zA-Z][a-zA-Z0-9+.-]*):[/\\]{2}([^/\\?#]*)([^?#]*)/.exec(raw);
  if (!m) return null;
  const scheme = m[1]!.toLowerCase();
  let host = decodeAll(m[2]!.slice(m[2]!.lastIndexOf('@') + 1)).toLowerCase();
  if ((scheme === 'http' && host.endsWith(':80')) || (scheme === 'https' && host.endsWith(':443'))) host = host.replace(/:\d+$/, '');
  const segments: string[] = [];
  for (const s of decodeAll(m[3]!).replace(/\\/g, '/').split('/')) {
    if (s === '' || s === '.') continue;
    if (s === '..') segments.pop();
    else segments.push(s);
  }
  return { origin: `${scheme}://${host}`, segments };
}
function decodeAll(text: string): string {
  for (let i = 0; i < 6; i++) {
    let next: string;
    try {
      next = decodeURIComponent(text);
    } catch {
      next = text.replace(/%([0-9A-Fa-f]{2})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16)));
    }
    if (next === text) return text;
    text = next;
  }
  return text;
}

/** True when the lenient server would see `location` under `container`'s prefix. */
function underContainer(location: string, container: VirtualChunkContainer): boolean {
  const loc = serverView(location);
  const pre = serverView(container.urlPrefix)!;
  if (!loc || loc.origin !== pre.origin) return false;
  const dir = container.urlPrefix.endsWith('/');
  return loc.segments.length >= pre.segments.length + (dir ? 1 : 0) && pre.segments.every((s, i) => loc.segments[i] === s);
}

const ATTACKS: [string, string][] = [
  ['https://host/allowed/../secret/x', 'virtual-chunk-outside-container'],
  ['https://host/allowed/%2e%2e/secret/x', 'virtual-chunk-outside-container'],
  ['https://host/allowed/%2E%2e/secret/x', 'virtual-chunk-outside-container'],
  ['https://host/allowed/.%2e/secret/x', 'virtual-chunk-outside-container'],
  ['https://host/allowed/./../secret', 'virtual-chunk-outside-container'],
  ['https://host/allowed/..%2fsecret/x', 'virtual-chunk-unsafe-url'],
  ['https://host/allowed/..%2Fsecret/x', 'virtual-chunk-unsafe-url'],
  ['https://host/allowed/%252e%252e/secret', 'virtual-chunk-unsafe-url'],
  ['https://host/allowed/..%5csecret', 'virtual-chunk-unsafe-url'],
  ['https://host/allowed/..\\secret', 'virtual-chunk-unsafe-url'],
  ['https://host/allowed\\..\\secret', 'virtual-chunk-unsafe-url'],
  ['https://host/allowed//x', 'virtual-chunk-unsafe-url'],
  ['https://host/allowed@evil/allowed/x', 'virtual-chunk-no-container'], // path `/allowed@evil/...`, not user info
  ['https://host@evil/allowed/x', 'virtual-chunk-unsafe-url'],
  ['https://allowed@evil/', 'virtual-chunk-unsafe-url'],
  ['https://host/allowed/x#/../../secret', 'virtual-chunk-unsafe-url'],
  ['https://host/allowed/x\t', 'virtual-chunk-unsafe-url'],
  ['https://host/allowed/\u0000x', 'virtual-chunk-unsafe-url'],
  ['https:host/allowed/x', 'virtual-chunk-unsafe-url'],
  ['https://host/allowedX/y', 'virtual-chunk-no-container'],
  ['https://host/allowed', 'virtual-chunk-no-container'],
  ['https://host/allowed/', 'virtual-chunk-outside-container'],
  ['https://host:8443/allowed/x', 'virtual-chunk-no-container'],
  ['https://host.evil/allowed/x', 'virtual-chunk-no-container'],
  ['http://host/allowed/x', 'virtual-chunk-no-container'],
  ['https://host/publicity/x', 'virtual-chunk-outside-container'],
  ['s3://bucket/allowed/../secret/x', 'virtual-chunk-outside-container'],
  ['s3://bucket/allowed/%2e%2e/secret/x', 'virtual-chunk-outside-container'],
  ['s3://bucket-evil/allowed/x', 'virtual-chunk-no-container'],
  ['s3://bucket/database/x', 'virtual-chunk-outside-container'],
  ['file:///data/allowed/../secret', 'virtual-chunk-outside-container'],
  ['file:///data/allowed/%2e%2e/secret', 'virtual-chunk-outside-container'],
  ['file:///data/allowed/..%2fsecret', 'virtual-chunk-unsafe-url'],
  ['ftp://host/allowed/x', 'virtual-chunk-no-container'],
  ['not a url', 'virtual-chunk-unsafe-url'],
];
const SERVED: [string, VirtualChunkContainer][] = [
  ['https://host/allowed/x', ALLOWED],
  ['HTTPS://HOST:443/allowed/x', ALLOWED],
  ['https://host/allowed/a/../b', ALLOWED],
  ['https://host/allowed/%7Ex', ALLOWED],
  ['https://host/allowed/x?sig=../../secret&y=1', ALLOWED],
  ['https://host/public', PUBLIC],
  ['https://host/public/y/z', PUBLIC],
  ['s3://bucket/allowed/k/0', S3],
  ['s3://bucket/data/k', S3_BARE],
  ['file:///data/allowed/f.bin', FILE],
];

describe('virtual chunk container matching: known attacks', () => {
  it.each(ATTACKS)('%j is refused (%s)', (location, reason) => {
    expect(containerFor(CONTAINERS, location)).toBeUndefined();
    let caught: unknown;
    try {
      checkContainerExists(CONTAINERS, location);
    } catch (err) {
      caught = err;
    }
    if (!isFloeError(caught, 'UNAUTHORIZED')) throw new Error(`expected UNAUTHORIZED, got ${String(caught)}`);
    expect(caught.details.reason).toBe(reason);
  });
  it.each(SERVED)('%j is served by its container', (location, container) => {
    expect(containerFor(CONTAINERS, location)).toBe(container);
  });
});

// Hostile URLs from the pieces attacks are made of.
const scheme = fc.constantFrom('https', 'HTTPS', 'HtTpS', 'http');
const userinfo = fc.constantFrom('', '', 'allowed@', 'host@', 'a:b@');
const hostName = fc.constantFrom('host', 'HOST', 'evil', 'host.evil', '%68ost');
const port = fc.constantFrom('', '', ':443', ':80', ':8443');
const segment = fc.constantFrom('allowed', 'ALLOWED', 'secret', 'public', 'x', 'a', 'b', 'c0', 'data', 'y.bin', '..', '.', '%2e', '%2E%2e', '.%2e', '%2e.', '%2f', '%2F', '%5c', '%5C',
  '..%2f', '%252e%252e', '%25252e%25252e', '', 'allowed%2f..', '\\', '..\\', ';', '%00', '%7E', 'allowedX', '%61llowed', '\t', ' ');
const separator = fc.constantFrom('/', '/', '/', '//', '\\');
const tail = fc.constantFrom('', '', '?q=/../secret', '#/../secret', '?', '#');
const anyUrl = fc
  .tuple(scheme, fc.constantFrom('://', '://', ':/', ':'), userinfo, hostName, port, fc.array(fc.tuple(separator, segment), { minLength: 0, maxLength: 6 }), tail)
  .map(([s, colon, u, h, p, parts, t]) => `${s}${colon}${u}${h}${p}${parts.map(([sep, seg]) => sep + seg).join('')}${t}`);
// Most samples start as the authorised container's prefix does, where the old textual match erred.
const underPrefix = fc.tuple(fc.constantFrom('https://host/allowed', 'https://HOST:443/allowed', 's3://bucket/allowed', 'https://host/public'), fc.array(fc.tuple(separator, segment), { minLength: 1, maxLength: 6 }), tail)
  .map(([p, parts, t]) => `${p}${parts.map(([sep, seg]) => sep + seg).join('')}${t}`);
const hostileUrl = fc.oneof({ arbitrary: anyUrl, weight: 1 }, { arbitrary: underPrefix, weight: 3 });
const safeSegment = fc.stringMatching(/^[a-z0-9_~-][a-z0-9._~-]{0,8}$/).filter((s) => s !== '.' && s !== '..');

describe('virtual chunk container matching: property', () => {
  it('never serves a location outside the matched container, as the most lenient server reads it', () => {
    fc.assert(fc.property(hostileUrl, (location) => {
      const container = containerFor(CONTAINERS, location);
      if (container) expect(underContainer(location, container), `${location} -> ${container.urlPrefix}`).toBe(true);
    }), { numRuns: URL_PROBES, seed: SEED });
  });

  it('serves every plain location under a container', () => {
    fc.assert(fc.property(fc.array(safeSegment, { minLength: 1, maxLength: 5 }), (segments) => {
      expect(containerFor(CONTAINERS, `https://host/allowed/${segments.join('/')}`)).toBe(ALLOWED);
      expect(containerFor(CONTAINERS, `s3://bucket/allowed/${segments.join('/')}`)).toBe(S3);
    }), { numRuns: 500, seed: 17 });
  });
});

describe('virtual chunks against a loopback server that records every request', () => {
  const requests: { url: string; headers: IncomingHttpHeaders }[] = [];
  let server: Server;
  let base: string;
  beforeAll(async () => {
    server = createServer((req, res) => {
      requests.push({ url: req.url!, headers: req.headers });
      res.writeHead(200).end(Buffer.alloc(16, 7));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('sends the container credential only to paths under its prefix, and refuses the rest before any request', async () => {
    const secret = http(`${base}/allowed/`, { authorization: 'Bearer s3cr3t' });
    const open = http(`${base}/public/`);
    const repo = await Repository.create(Storage.newInMemory(), { virtualChunkContainers: { secret, open } }, 2, { [secret.urlPrefix]: null, [open.urlPrefix]: null });
    const session = await repo.writableSession('main');
    await ZarrArray.create(session.store, '/v', { shape: [4], chunkShape: [4], dataType: 'int32', fillValue: 0 } as never);
    const samples = fc.sample(fc.tuple(fc.array(fc.tuple(separator, segment), { maxLength: 5 }), tail), { numRuns: 300, seed: 1717 });
    const locations = [
      ...ATTACKS.map(([l]) => l.replace(/^https:\/\/host/, base)),
      ...samples.map(([parts, t]) => `${base}/allowed${parts.map(([sep, seg]) => sep + seg).join('')}${t}`),
      `${base}/allowed/ok.bin`, `${base}/public/ok.bin`,
    ];
    let refusedCount = 0;
    let read = 0;
    for (const location of locations) {
      const before = requests.length;
      await session.store.setVirtualRef('v/c/0', location, 0, 16, null, null, false);
      const outcome: unknown = await session.store.get('v/c/0').then(() => 'read', (e: unknown) => e);
      if (outcome === 'read') read++;
      else {
        if (!isFloeError(outcome)) throw new Error(`non-Floe error for ${location}: ${String(outcome)}`);
        if (outcome.code === 'UNAUTHORIZED') {
          refusedCount++;
          expect(requests.length, location).toBe(before); // refused before any request
        }
      }
    }
    const leaks = requests.filter((r) => r.headers.authorization !== undefined && !underContainer(`${base}${r.url}`, secret));
    expect(leaks).toEqual([]);
    for (const r of requests) expect(r.url.startsWith('/allowed/') || r.url.startsWith('/public/'), r.url).toBe(true);
    expect(requests.filter((r) => r.url.startsWith('/public/')).every((r) => r.headers.authorization === undefined)).toBe(true);
    expect(refusedCount).toBeGreaterThan(ATTACKS.length / 2);
    expect(read).toBeGreaterThan(1);
  });
});

describe('file:// containers', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'floe-hostile-vfile-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('refuses a dot-segment escape and a symlink out of the container, reads a plain file', async () => {
    mkdirSync(path.join(dir, 'allowed'));
    writeFileSync(path.join(dir, 'secret.bin'), Buffer.alloc(16, 9));
    writeFileSync(path.join(dir, 'allowed', 'ok.bin'), Buffer.alloc(16, 1));
    symlinkSync(path.join(dir, 'secret.bin'), path.join(dir, 'allowed', 'link.bin'));
    symlinkSync(dir, path.join(dir, 'allowed', 'up'));
    const prefix = `${pathToFileURL(path.join(dir, 'allowed')).href}/`;
    const config = { virtualChunkContainers: { local: { urlPrefix: prefix, store: { type: 'LocalFileSystem' as const, field0: path.join(dir, 'allowed') } } } };
    const repo = await Repository.create(Storage.newInMemory(), config, 2, { [prefix]: null });
    const session = await repo.writableSession('main');
    await ZarrArray.create(session.store, '/v', { shape: [4], chunkShape: [4], dataType: 'int32', fillValue: 0 } as never);
    const outcome = async (location: string) => {
      await session.store.setVirtualRef('v/c/0', location, 0, 16, null, null, false);
      return session.store.get('v/c/0').then((b) => b, (e: unknown) => e);
    };
    expect(await outcome(`${prefix}ok.bin`)).toEqual(new Uint8Array(16).fill(1));
    for (const location of [`${prefix}../secret.bin`, `${prefix}%2e%2e/secret.bin`, `${prefix}link.bin`, `${prefix}up/secret.bin`]) {
      const err = await outcome(location);
      expect(err, location).toMatchObject({ code: 'UNAUTHORIZED', details: { reason: 'virtual-chunk-outside-container' } });
    }
  });
});
