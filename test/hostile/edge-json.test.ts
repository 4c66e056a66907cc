// Issue 17, stage 2: JSON from callers at the edges (HTTP query bodies, `floe query` text, fork
// text) goes through the same limited parser as stored metadata, and decode workers hold chunks
// to the limits configured in the process that sends them.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parseQueryText } from '../../src/cli/query-text.ts';
import { isFloeError } from '../../src/errors.ts';
import { DecodePool } from '../../src/engine/decode-pool.ts';
import { buildCodecChain } from '../../src/format/codecs/pipeline.ts';
import { configureLimits, DEFAULT_LIMITS } from '../../src/format/limits.ts';
import { parseDataType } from '../../src/format/zarr/data-types.ts';
import { defaultFillValue } from '../../src/format/zarr/fill-value.ts';
import { createQueryServer, type QueryServer } from '../../src/query/http.ts';
import { MemoryStorage, Repository, Session, Storage } from '../../src/index.ts';
import { weatherStore } from '../query/support.ts';

const deep = (depth: number): string => '['.repeat(depth) + ']'.repeat(depth);

afterEach(() => {
  configureLimits(DEFAULT_LIMITS);
});

describe('JSON at the edges', () => {
  let server: QueryServer;
  let base: string;
  beforeAll(async () => {
    server = createQueryServer(await weatherStore(), { timeoutMs: 5_000 });
    base = await server.listen(0, '127.0.0.1');
  });
  afterAll(() => server.close());

  it('a query body nested 3,000 deep is a 400 naming the server\'s query depth limit (32), not a 500', async () => {
    const res = await fetch(`${base}/query`, { method: 'POST', body: `{"from": ${deep(3000)}}`, headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(400);
    expect(await res.text()).toMatch(/deeper than 32 levels/);
  });

  it('`floe query` text and fork text are held to the same limits', async () => {
    expect(() => parseQueryText(`{"from": ${deep(3000)}}`)).toThrow(/deeper than 512 levels/);
    const repo = await Repository.create(Storage.fromObjectStorage(new MemoryStorage()));
    const err: unknown = await Session.fromFork(repo, `{"format": ${deep(3000)}}`).catch((e: unknown) => e);
    expect(isFloeError(err, 'LIMIT_EXCEEDED')).toBe(true);
    const malformed: unknown = await Session.fromFork(repo, '{"format": ').catch((e: unknown) => e);
    expect(isFloeError(malformed, 'INVALID_ARGUMENT')).toBe(true);
  });
});

describe('decode workers', () => {
  it('hold variable-length chunks to the sender\'s configured limit', async () => {
    const dataType = parseDataType('binary');
    const chain = buildCodecChain([{ name: 'vlen-bytes' }, { name: 'zstd', configuration: { level: 1, checksum: false } }], {
      shape: [4], dataType, fillValue: defaultFillValue(dataType),
    });
    const values = [0, 1, 2, 3].map((i) => new Uint8Array(1000).fill(i));
    const encoded = chain.encode({ data: values, shape: [4], stride: [1] });
    const pool = new DecodePool(1);
    try {
      expect((await pool.decode(chain, encoded.slice())).data).toEqual(values);
      configureLimits({ variableChunkBytes: 1000 });
      const err: unknown = await pool.decode(chain, encoded.slice()).catch((e: unknown) => e);
      if (!isFloeError(err, 'LIMIT_EXCEEDED')) throw new Error(`expected LIMIT_EXCEEDED, got ${String(err)}`);
      expect(err.details).toEqual({ kind: 'decoded-bytes', limit: 1000, actual: 4020, codec: 'zstd' });
      configureLimits(DEFAULT_LIMITS);
      expect((await pool.decode(chain, encoded.slice())).data).toEqual(values);
    } finally {
      await pool.close();
    }
  });
});
