import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { toJsonText, writeJsonWithArray } from '../../src/cli/json-output.ts';

async function streamed(head: Record<string, unknown>, values: ArrayLike<unknown>, batch: number): Promise<{ text: string; writes: number }> {
  const parts: string[] = [];
  await writeJsonWithArray((t) => parts.push(t), head, 'data', values, batch);
  return { text: parts.join(''), writes: parts.length };
}

const head = { path: '/a', ref: 'main', dtype: 'float64', shape: [3] };

describe('JSON output of a large array, written in pieces', () => {
  it('is the same text toJsonText gives, for any values and piece size', async () => {
    const values = fc.oneof(
      fc.array(fc.double()).map((xs) => Float64Array.from(xs)),
      fc.array(fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n })).map((xs) => BigInt64Array.from(xs)),
      fc.array(fc.string()),
      fc.array(fc.uint8Array({ maxLength: 4 })),
    );
    await fc.assert(
      fc.asyncProperty(values, fc.integer({ min: 1, max: 7 }), async (data, batch) => {
        expect((await streamed(head, data, batch)).text).toBe(toJsonText({ ...head, data }) + '\n');
      }),
      { numRuns: 300 },
    );
  });

  it('writes the values in pieces of at most `batch`', async () => {
    const { text, writes } = await streamed(head, Float64Array.from({ length: 10 }, (_, i) => i), 3);
    expect(writes).toBe(1 + 4 + 1); // opening, ceil(10 / 3) pieces, closing
    expect((JSON.parse(text) as { data: number[] }).data).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });
});
