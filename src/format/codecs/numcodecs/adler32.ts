// Adler-32 (RFC 1950), as numcodecs' Adler32 takes it from zlib: two sums modulo 65521. They are
// reduced every 5552 bytes, as zlib does (where 32-bit sums would overflow); modular sums do not
// depend on where the reductions fall.
const MOD = 65521;
const RUN = 5552;

export function adler32(data: Uint8Array): number {
  let a = 1;
  let b = 0;
  for (let start = 0; start < data.length; start += RUN) {
    for (const byte of data.subarray(start, start + RUN)) {
      a += byte;
      b += a;
    }
    a %= MOD;
    b %= MOD;
  }
  return ((b << 16) | a) >>> 0;
}
