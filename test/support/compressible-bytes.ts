// Bytes for codec properties: random bytes, runs of one byte and short patterns repeated, joined,
// so LZ-style coders find matches (and literals) of every length.
import fc from 'fast-check';

export function compressibleBytes(options: { maxParts: number; maxRun: number; maxRepeats: number }): fc.Arbitrary<Uint8Array> {
  return fc.array(fc.oneof(
    fc.uint8Array({ maxLength: 300 }),
    fc.tuple(fc.integer({ min: 0, max: 255 }), fc.integer({ min: 1, max: options.maxRun })).map(([b, n]) => new Uint8Array(n).fill(b)),
    fc.tuple(fc.uint8Array({ minLength: 1, maxLength: 16 }), fc.integer({ min: 1, max: options.maxRepeats }))
      .map(([p, n]) => Uint8Array.from({ length: p.length * n }, (_, k) => p[k % p.length] ?? 0)),
  ), { maxLength: options.maxParts }).map((parts) => {
    const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
    let o = 0;
    for (const p of parts) {
      out.set(p, o);
      o += p.length;
    }
    return out;
  });
}
