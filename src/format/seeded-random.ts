// A seeded generator of numbers in [0, 1) (xorshift32): fault plans, models and benches replay
// the same sequence from the same seed, so a failing run can be run again exactly.
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0 || 1;
  return () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 0x100000000;
  };
}
