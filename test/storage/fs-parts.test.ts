// FsStorage.putParts: an object given as parts (views of other memory) is stored as their
// concatenation, whatever their number and sizes, in every durability mode and for create-only
// puts; large writes are issued in bounded calls, small ones synchronously.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { FsStorage, type Durability } from '../../src/engine/storage/fs.ts';
import { withRetries } from '../../src/engine/storage/retries.ts';

const RUNS = Number(process.env.FLOE_FS_PARTS_RUNS ?? 30);
const scratch = mkdtempSync(path.join(tmpdir(), 'floe-fs-parts-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
let roots = 0;

/** One source buffer and part boundaries in it: lengths up to 1.5 MiB, empty parts included, some parts overlapping. */
const partsArb = fc.record({
  lengths: fc.array(fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 5000 }), fc.integer({ min: 60_000, max: 1_600_000 })), { maxLength: 12 }),
  seed: fc.nat(),
});

function partsOf({ lengths, seed }: { lengths: number[]; seed: number }): Uint8Array[] {
  const source = new Uint8Array(1_700_000).map((_, i) => (i * 31 + seed) & 0xff);
  return lengths.map((n, i) => source.subarray((i * 7919) % 100_000, ((i * 7919) % 100_000) + n));
}

describe('FsStorage.putParts', () => {
  it.each<Durability>(['atomic', 'none', 'fsync'])("'%s': stores the parts' concatenation, over an existing object too", async (durability) => {
    const storage = new FsStorage({ root: path.join(scratch, `r${roots++}`), durability });
    await fc.assert(
      fc.asyncProperty(partsArb, partsArb, async (first, second) => {
        for (const spec of [first, second]) {
          const parts = partsOf(spec);
          const { version } = await storage.putParts('a/k', parts);
          const got = await storage.get('a/k');
          expect(got?.version).toBe(version);
          expect(Buffer.from(got!.bytes).equals(Buffer.concat(parts))).toBe(true);
        }
      }),
      { numRuns: durability === 'fsync' ? Math.ceil(RUNS / 5) : RUNS, seed: 3 },
    );
  });

  it('writes parts create-only, and through a wrapper as a put', async () => {
    const storage = new FsStorage({ root: path.join(scratch, `r${roots++}`), durability: 'atomic' });
    const parts = partsOf({ lengths: [3, 0, 1_200_000, 70_000], seed: 5 });
    await storage.putParts('new', parts, { ifNoneMatch: '*' });
    expect(Buffer.from((await storage.get('new'))!.bytes).equals(Buffer.concat(parts))).toBe(true);
    const wrapped = withRetries(storage);
    expect(wrapped.putParts).toBeDefined();
    await wrapped.putParts!('wrapped', parts);
    expect(Buffer.from((await storage.get('wrapped'))!.bytes).equals(Buffer.concat(parts))).toBe(true);
  });
});
