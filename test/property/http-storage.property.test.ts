// Properties of the HTTP storage (issue 30), against MemoryStorage as the model of the contract:
// (1) over a host that honours ranges (several as multipart/byteranges), and one that ignores
// them, every get (whole, offset, bounded, suffix, past the end), multi-range get and head answers
// exactly what MemoryStorage answers;
// (2) over a host that answers a ranged GET with an arbitrary 206 (random Content-Range, random
// body), the storage accepts exactly the answers whose Content-Range names the interval the
// request selects in an object of the size it states, with a body of that length (a model written
// here, apart from the storage's), and otherwise fails with STORAGE_ERROR: a shifted, short,
// long, malformed or foreign range is never returned as the range asked for.
// Runs: FLOE_HTTP_PROPERTY_RUNS (default 60 each).
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isFloeError } from '../../src/errors.ts';
import { HttpStorage } from '../../src/engine/storage/http.ts';
import { MemoryStorage } from '../../src/engine/storage/memory.ts';
import type { ByteRange } from '../../src/engine/storage/types.ts';
import { startStaticServer, type StaticServer } from '../support/static-http-server.ts';

const RUNS = Number(process.env.FLOE_HTTP_PROPERTY_RUNS ?? 60);

const objects = new Map<string, Uint8Array>();
let mode: 'honour' | 'ignore' = 'honour';
let forged: { contentRange: string; body: Uint8Array } | undefined;
const servers: StaticServer[] = [];

beforeAll(async () => {
  // One host per behaviour, reading the shared map: each run replaces its contents.
  for (const ranges of ['honour', 'ignore'] as const) {
    servers.push(await startStaticServer({ objects, prefix: `${ranges}/`, ranges }));
  }
  servers.push(
    await startStaticServer({
      objects,
      prefix: 'forged/',
      hook: (req, res) => {
        if (!req.headers.range || !forged) return false;
        res.writeHead(206, { 'content-range': forged.contentRange, 'content-length': String(forged.body.length), etag: '"f"' });
        res.end(forged.body);
        return true;
      },
    }),
  );
});
afterAll(async () => {
  await Promise.all(servers.map((s) => s.stop()));
});

const keyArb = fc.constantFrom('a', 'b/c', 'sp ace', 'ü/ß.bin', 'refs/branch.main/ref.json', 'x%y');
const objectsArb = fc.dictionary(keyArb, fc.uint8Array({ maxLength: 300 }), { minKeys: 1, maxKeys: 4 });
const rangeArb: fc.Arbitrary<ByteRange | undefined> = fc.oneof(
  fc.constant(undefined),
  fc.record({ offset: fc.nat(400) }),
  fc.record({ offset: fc.nat(400), length: fc.nat(400) }),
  fc.record({ suffixLength: fc.nat(400) }),
);

async function seed(entries: Record<string, Uint8Array>): Promise<MemoryStorage> {
  objects.clear();
  const model = new MemoryStorage();
  for (const [key, bytes] of Object.entries(entries)) {
    objects.set(key, bytes);
    await model.put(key, bytes);
  }
  return model;
}

describe('HTTP storage answers as the contract model does', () => {
  for (const ranges of ['honour', 'ignore'] as const) {
    it(`over a host that ${ranges === 'honour' ? 'honours' : 'ignores'} Range`, async () => {
      await fc.assert(
        fc.asyncProperty(objectsArb, fc.array(fc.tuple(fc.oneof(keyArb, fc.constant('absent')), rangeArb), { minLength: 1, maxLength: 6 }), async (entries, reads) => {
          mode = ranges;
          const model = await seed(entries);
          const storage = new HttpStorage({ url: `${servers[ranges === 'honour' ? 0 : 1]!.url}`, onWarning: () => undefined });
          for (const [key, range] of reads) {
            const expected = await model.get(key, range);
            const actual = await storage.get(key, range);
            expect(actual === null).toBe(expected === null);
            if (expected && actual) expect(Buffer.from(actual.bytes).equals(Buffer.from(expected.bytes))).toBe(true);
            const info = await storage.head(key);
            expect(info?.size).toBe((await model.head(key))?.size);
          }
        }),
        { numRuns: RUNS },
      );
    });
  }

  it('reads several ranges in one request as the model reads each, whatever the host does with them', async () => {
    const spansArb = fc.uniqueArray(fc.nat(299), { minLength: 1, maxLength: 8 }).chain((starts) =>
      fc.tuple(...[...starts].sort((a, b) => a - b).map((start, i, all) => fc.integer({ min: 1, max: Math.max(1, (all[i + 1] ?? 300) - start) }).map((length) => ({ offset: start, length })))),
    );
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ minLength: 300, maxLength: 300 }), spansArb, fc.constantFrom(0, 1), async (bytes, spans, host) => {
        const model = await seed({ obj: bytes });
        const storage = new HttpStorage({ url: servers[host]!.url, onWarning: () => undefined });
        const got = await storage.getRanges('obj', spans);
        for (const [i, span] of spans.entries()) {
          expect(Buffer.from(got!.bytes[i]!).equals(Buffer.from((await model.get('obj', span))!.bytes))).toBe(true);
        }
      }),
      { numRuns: RUNS },
    );
  });

  it('accepts a 206 only when its Content-Range is the interval asked for', async () => {
    const contentRangeArb = fc.oneof(
      fc.tuple(fc.nat(40), fc.nat(40), fc.oneof(fc.nat(40).map(String), fc.constant('*'))).map(([a, b, t]) => `bytes ${a}-${b}/${t}`),
      fc.constantFrom('', 'bytes */10', 'bytes 0-1', 'items 0-1/2', 'bytes -1-2/3', 'bytes 00-01/9007199254740993'),
    );
    const rangeArb2 = fc.oneof(fc.record({ offset: fc.nat(40), length: fc.integer({ min: 1, max: 40 }) }), fc.record({ suffixLength: fc.integer({ min: 1, max: 40 }) }));
    await fc.assert(
      fc.asyncProperty(rangeArb2, contentRangeArb, fc.uint8Array({ maxLength: 45 }), fc.option(fc.tuple(fc.integer({ min: 1, max: 60 }), fc.integer({ min: -1, max: 1 }), fc.integer({ min: -1, max: 1 }), fc.boolean())), async (range, randomRange, randomBody, near) => {
        // Most runs answer near the honest answer for an object of `total` bytes: exactly it (which
        // must be accepted), or with its start or end moved by one, or a wrong total.
        const [total = 1, moveStart = 0, moveEnd = 0, exact = true] = near ?? [];
        const honest = near === null ? undefined : honestInterval(range, total);
        const start = (honest?.start ?? 0) + (exact ? 0 : moveStart);
        const end = (honest?.end ?? 0) + (exact ? 0 : moveEnd);
        const contentRange = honest && start >= 0 ? `bytes ${start}-${end - 1}/${total + (exact || moveStart || moveEnd ? 0 : 1)}` : randomRange;
        const body = honest && start >= 0 ? new Uint8Array(Math.max(0, end - start)).fill(7) : randomBody;
        if (honest && exact) expect(honestAnswer(range, contentRange, body.length)).toBe(true);
        await seed({ obj: new Uint8Array(1) });
        forged = { contentRange, body };
        let accepted: Uint8Array | undefined;
        try {
          accepted = (await new HttpStorage({ url: servers[2]!.url }).get('obj', range))?.bytes;
        } catch (err) {
          if (!isFloeError(err, 'STORAGE_ERROR')) throw err;
        } finally {
          forged = undefined;
        }
        expect(accepted !== undefined).toBe(honestAnswer(range, contentRange, body.length));
        if (accepted) expect(Buffer.from(accepted).equals(Buffer.from(body))).toBe(true);
      }),
      { numRuns: RUNS * 3 },
    );
  });
});

/** The interval a range selects in an object of `total` bytes; undefined when it is empty (a 416). */
function honestInterval(range: { offset: number; length: number } | { suffixLength: number }, total: number): { start: number; end: number } | undefined {
  const start = 'suffixLength' in range ? Math.max(0, total - range.suffixLength) : range.offset;
  const end = 'suffixLength' in range ? total : Math.min(total, range.offset + range.length);
  return start < end ? { start, end } : undefined;
}

/** The model: whether a 206 with this Content-Range and body length answers `range` (RFC 9110 §14). */
function honestAnswer(range: { offset: number; length: number } | { suffixLength: number }, contentRange: string, bodyLength: number): boolean {
  const m = /^bytes (\d+)-(\d+)\/(\d+|\*)$/.exec(contentRange);
  if (!m) return false;
  const [first, last] = [Number(m[1]), Number(m[2])];
  if (last < first || bodyLength !== last - first + 1) return false;
  if (m[3] === '*') return 'offset' in range && first === range.offset && last === range.offset + range.length - 1;
  const total = Number(m[3]);
  if (last >= total || !Number.isSafeInteger(total)) return false;
  if ('suffixLength' in range) return first === Math.max(0, total - range.suffixLength) && last === total - 1;
  return first === range.offset && last === Math.min(total, range.offset + range.length) - 1;
}
