// What the writers of s3-lossy-commits.test.ts write, shared by the writer process and the checker.

/** The values of chunk `index` (`chunk` int32 elements): its index and position, never the fill 0. */
export function chunkValues(index: number, chunk: number): Int32Array {
  return Int32Array.from({ length: chunk }, (_, i) => index * 100_000 + i + 1);
}

export const commitMessage = (writer: number, m: number): string => `writer ${writer} commit ${m}`;
