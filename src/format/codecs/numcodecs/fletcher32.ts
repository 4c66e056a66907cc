// Fletcher-32 as HDF5 and netCDF compute it (numcodecs' Fletcher32 since 0.12; not the textbook
// variant): 16-bit words read big-endian, a lone last byte as the high half of a word, sums
// folded with end-around carry every 360 words and twice at the end.
const RUN_WORDS = 360;

const fold = (sum: number): number => (sum & 0xffff) + (sum >>> 16);

export function fletcher32(data: Uint8Array): number {
  let sum1 = 0;
  let sum2 = 0;
  const words = data.length >>> 1;
  for (let start = 0; start < words; start += RUN_WORDS) {
    const end = Math.min(words, start + RUN_WORDS);
    for (let w = start; w < end; w++) {
      sum1 += ((data[2 * w] ?? 0) << 8) | (data[2 * w + 1] ?? 0); // 2w + 1 < length
      sum2 += sum1;
    }
    sum1 = fold(sum1);
    sum2 = fold(sum2);
  }
  if (data.length % 2 === 1) {
    sum1 += (data[data.length - 1] ?? 0) << 8;
    sum2 += sum1;
    sum1 = fold(sum1);
    sum2 = fold(sum2);
  }
  sum1 = fold(sum1);
  sum2 = fold(sum2);
  return ((sum2 << 16) | sum1) >>> 0;
}
