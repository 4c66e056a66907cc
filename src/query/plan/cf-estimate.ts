// What CF decoding adds to a query's memory estimate (loaded with the first decoding query's
// plan): the query server's budget counts a decoding query's output beside its stored result.
import type { ZarrArray } from '../../engine/array.ts';
import { isVariableLength } from '../../format/zarr/data-types.ts';

/**
 * Heap bytes of one decoded date and its slot in the result's array: measured 127.8 B per CfDate
 * (10^6 noleap dates, `node --expose-gc`, heapUsed before and after).
 */
export const DATE_BYTES = 128;

/**
 * Bytes per element each array's decoding allocates beside its stored result, for the query
 * server's memory budget: float32/float64 values for packed or masked arrays, plus a date per
 * element for time variables; 0 for arrays decoding only reinterprets (`_Unsigned`) or leaves as
 * they are, and for arrays whose attributes do not describe a decoding (the read reports why).
 */
export async function decodedElementBytes(arrays: readonly ZarrArray[]): Promise<number[]> {
  return Promise.all(arrays.map(async (array) => {
    if (isVariableLength(array.dataType)) return 0;
    const variable = await array.cfVariable().catch(() => undefined);
    if (variable === undefined) return 0;
    const output = variable.values.output;
    return (output === 'float32' ? 4 : output === 'float64' ? 8 : 0) + (variable.time ? DATE_BYTES : 0);
  }));
}
