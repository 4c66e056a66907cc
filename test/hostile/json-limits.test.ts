// Issue 17, stage 2: JSON is read and written with one size limit (UTF-8 bytes) and one nesting
// limit (64 MiB and 512 levels by default), so nesting of 3,000 is a FloeError rather than a stack
// overflow, an 8 MiB attribute string round-trips, and Floe never writes what it cannot read back.
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { isFloeError, type FloeError } from '../../src/errors.ts';
import { parseJson, stringifyJson, type JsonValue } from '../../src/format/json.ts';
import { configureLimits, DEFAULT_LIMITS } from '../../src/format/limits.ts';
import { decodeV1Config } from '../../src/format/icechunk/spec1-config.ts';
import { parseNodeMetadata } from '../../src/format/zarr/metadata.ts';
import { encodeV1Attributes, parseV1Attributes } from '../../src/format/zarr-v1/meta.ts';
import { MemoryStorage, Repository, Storage, openStore, createGroup, openGroup, createArray } from '../../src/index.ts';
import { HOSTILE_SEED, hostileRuns } from '../support/hostile-runs.ts';

const MiB = 2 ** 20;
const RUNS = hostileRuns(300);

/** `depth` nested arrays around 1: depth 1 is `[1]`. */
function nested(depth: number): JsonValue {
  let v: JsonValue = 1;
  for (let i = 0; i < depth; i++) v = [v];
  return v;
}
const nestedText = (depth: number): string => '['.repeat(depth) + '1' + ']'.repeat(depth);

async function rejection(run: () => Promise<unknown>): Promise<unknown> {
  try {
    await run();
  } catch (err) {
    return err;
  }
  throw new Error('expected a refusal');
}

function refusal(run: () => unknown): FloeError {
  try {
    run();
  } catch (err) {
    if (isFloeError(err)) return err;
    throw new Error(`expected a FloeError, got ${String(err)}`, { cause: err });
  }
  throw new Error('expected a refusal');
}

afterEach(() => {
  configureLimits(DEFAULT_LIMITS);
});

describe('JSON nesting', () => {
  it('refuses nesting of 3,000 with LIMIT_EXCEEDED json-depth, not a stack overflow', () => {
    const err = refusal(() => parseJson(nestedText(3000), 'a/zarr.json'));
    expect(err.code).toBe('LIMIT_EXCEEDED');
    expect(err.details).toEqual({ kind: 'json-depth', limit: 512 });
    expect(err.where).toBe('a/zarr.json');
    const doc = `{"zarr_format": 3, "node_type": "group", "attributes": {"v": ${nestedText(3000)}}}`;
    expect(refusal(() => parseNodeMetadata(doc, 'g/zarr.json')).code).toBe('LIMIT_EXCEEDED');
  });

  it('reads exactly 512 levels and refuses 513', () => {
    expect(parseJson(nestedText(512))).toEqual(nested(512));
    expect(refusal(() => parseJson(nestedText(513))).code).toBe('LIMIT_EXCEEDED');
    expect(refusal(() => parseJson(`{"a": ${nestedText(512)}}`)).code).toBe('LIMIT_EXCEEDED');
  });

  it('writes what it reads and refuses what it would refuse to read, at every depth (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 700 }), fc.integer({ min: 0, max: 2 }), (depth, indent) => {
        const value = nested(depth);
        const written = (() => {
          try {
            return stringifyJson(value, indent);
          } catch (err) {
            return err;
          }
        })();
        const readable = depth <= 512;
        if (readable) expect(parseJson(written as string)).toEqual(value);
        else expect(isFloeError(written, 'LIMIT_EXCEEDED')).toBe(true);
        const read = (() => {
          try {
            return parseJson(nestedText(depth));
          } catch (err) {
            return err;
          }
        })();
        expect(isFloeError(read, 'LIMIT_EXCEEDED')).toBe(!readable);
      }),
      { numRuns: Math.min(RUNS, 200), seed: HOSTILE_SEED },
    );
  });

  it('refuses a too-deep attribute on write, naming the attribute path and the key, and writes nothing', async () => {
    const store = openStore(':memory:');
    const err = await rejection(() => createGroup(store, '/g', { attributes: { title: 'x', deep: nested(600) } }));
    if (!isFloeError(err, 'LIMIT_EXCEEDED')) throw new Error(`expected LIMIT_EXCEEDED, got ${String(err)}`);
    expect(err.details.kind).toBe('json-depth');
    expect(err.where).toBe('g/zarr.json');
    expect(err.message).toMatch(/at attributes\.deep\[0\]\[0\]/);
    expect(await store.get('g/zarr.json')).toBeUndefined();
  });

  it('refuses a cyclic attribute value as too deep instead of recursing forever', () => {
    const cyclic: { [key: string]: JsonValue } = {};
    cyclic.self = cyclic;
    expect(refusal(() => stringifyJson({ attributes: cyclic })).code).toBe('LIMIT_EXCEEDED');
  });

  it('holds Zarr v1 attributes and Icechunk sessions to the same limits', async () => {
    expect(refusal(() => encodeV1Attributes({ v: nested(600) })).details).toMatchObject({ kind: 'json-depth' });
    expect(refusal(() => parseV1Attributes(new TextEncoder().encode(`{"v": ${nestedText(3000)}}`))).code).toBe('LIMIT_EXCEEDED');
    const repo = await Repository.create(Storage.fromObjectStorage(new MemoryStorage()));
    const session = await repo.writableSession('main');
    const err = await rejection(() => createGroup(session.store, '/g', { attributes: { v: nested(600) } }));
    expect(isFloeError(err, 'LIMIT_EXCEEDED')).toBe(true);
    await createGroup(session.store, '/ok', { attributes: { v: nested(500) } });
    await session.commit('nested but readable');
    const reread = await repo.readonlySession({ branch: 'main' });
    expect((await openGroup(reread.store, '/ok')).attributes.v).toEqual(nested(500));
  });

  it('the depth limit is configurable, and the same on both sides', () => {
    configureLimits({ jsonDepth: 8 });
    expect(parseJson(nestedText(8))).toEqual(nested(8));
    expect(refusal(() => parseJson(nestedText(9))).details).toEqual({ kind: 'json-depth', limit: 8 });
    expect(refusal(() => stringifyJson(nested(9))).details).toMatchObject({ kind: 'json-depth', limit: 8 });
    configureLimits({ jsonDepth: 1000 });
    expect(parseJson(nestedText(1000))).toEqual(nested(1000));
    expect(stringifyJson(nested(1000), 0)).toBe(nestedText(1000));
    expect(refusal(() => configureLimits({ jsonDepth: 3000 })).code).toBe('INVALID_ARGUMENT');
  });
});

describe('JSON size', () => {
  it('round-trips an 8 MiB attribute string through a store (under the 64 MiB default)', async () => {
    const store = openStore(':memory:');
    const text = 'abc\u00e9"\\'.repeat((8 * MiB) / 6);
    await createGroup(store, '/g', { attributes: { text } });
    expect((await openGroup(store, '/g')).attributes.text).toBe(text);
    const array = await createArray(store, '/a', { shape: [2], chunkShape: [2], dataType: 'uint8', attributes: { text } });
    expect(array.attributes.text).toBe(text);
  });

  it('refuses a document over the size limit on read (before decoding its bytes) and on write', () => {
    const over = new Uint8Array(DEFAULT_LIMITS.jsonBytes + 1).fill(0x20);
    const err = refusal(() => parseNodeMetadata(over, 'big/zarr.json'));
    expect(err.code).toBe('LIMIT_EXCEEDED');
    expect(err.details).toEqual({ kind: 'json-bytes', limit: DEFAULT_LIMITS.jsonBytes, actual: DEFAULT_LIMITS.jsonBytes + 1 });
    configureLimits({ jsonBytes: MiB });
    const value = { text: 'x'.repeat(MiB) };
    expect(refusal(() => stringifyJson(value)).details).toMatchObject({ kind: 'json-bytes', limit: MiB });
    expect(refusal(() => parseJson(JSON.stringify(value))).details).toMatchObject({ kind: 'json-bytes', limit: MiB });
    expect(refusal(() => encodeV1Attributes(value)).details).toMatchObject({ kind: 'json-bytes' });
  });

  it('holds a spec-1 config.yaml to the same size limit before parsing it', () => {
    configureLimits({ jsonBytes: 1000 });
    const yaml = new TextEncoder().encode(`inline_chunk_threshold_bytes: 512\nnote: "${'x'.repeat(1000)}"\n`);
    expect(refusal(() => decodeV1Config(yaml, 'config.yaml')).details).toEqual({ kind: 'json-bytes', limit: 1000, actual: yaml.length });
    configureLimits(DEFAULT_LIMITS);
    expect(decodeV1Config(yaml)).toMatchObject({ inline_chunk_threshold_bytes: 512 });
  });

  it('counts UTF-8 bytes, not UTF-16 units, the same on both sides', () => {
    configureLimits({ jsonBytes: 1000 });
    const fits = JSON.stringify('\u00e9'.repeat(499)); // 998 + 2 quotes bytes
    expect(parseJson(fits)).toBe('\u00e9'.repeat(499));
    expect(stringifyJson('\u00e9'.repeat(499))).toBe(fits);
    expect(refusal(() => parseJson(JSON.stringify('\u00e9'.repeat(500)))).details).toMatchObject({ kind: 'json-bytes', actual: 1002 });
    expect(refusal(() => stringifyJson('\u00e9'.repeat(500))).details).toMatchObject({ kind: 'json-bytes', actual: 1002 });
  });
});

describe('hostile JSON text (fuzz)', () => {
  const documents = fc.jsonValue({ maxDepth: 6 }).map((v) => JSON.stringify(v));
  /** Valid documents cut, spliced with brackets, or wrapped in deep nesting. */
  const hostile = fc.oneof(
    documents,
    fc.tuple(documents, fc.nat()).map(([d, n]) => d.slice(0, n % (d.length + 1))),
    fc.tuple(documents, fc.integer({ min: 400, max: 5000 })).map(([d, n]) => '['.repeat(n) + d + ']'.repeat(n)),
    fc.tuple(documents, fc.integer({ min: 400, max: 5000 })).map(([d, n]) => '{"a":'.repeat(n) + d),
    fc.tuple(documents, fc.string({ unit: fc.constantFrom('[', ']', '{', '}', '"', '\\', ',', ':', '1', 'e', '-', ' ', '\u0000') })).map(([d, s]) => d + s),
    fc.string({ unit: 'binary', maxLength: 200 }),
  );

  it('parses or refuses with INVALID_METADATA / LIMIT_EXCEEDED, never another error', () => {
    fc.assert(
      fc.property(hostile, (text) => {
        let outcome: string;
        try {
          parseJson(text, 'fuzz');
          outcome = 'ok';
        } catch (err) {
          outcome = isFloeError(err) ? err.code : `non-Floe: ${String(err)}`;
        }
        expect(['ok', 'INVALID_METADATA', 'LIMIT_EXCEEDED']).toContain(outcome);
        // Whatever JSON.parse accepts within the limits, parseJson accepts too.
        if (outcome !== 'ok' && outcome !== 'LIMIT_EXCEEDED') expect(() => JSON.parse(text)).toThrow();
      }),
      { numRuns: RUNS, seed: HOSTILE_SEED },
    );
  });
});
