// Element values follow from one integer seed: a generated case stays short and readable (the seed,
// not thousands of numbers), and shrinking the seed towards 0 still gives a deterministic case.
import { checkedAt } from '../../engine/indexing.ts';

/** A small deterministic PRNG (mulberry32). */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const u32 = (r: () => number): number => Math.floor(r() * 2 ** 32) >>> 0;
export const pick = <T>(r: () => number, xs: readonly T[]): T => checkedAt(xs, Math.floor(r() * xs.length), 'INVALID_ARGUMENT', 'pick from an empty list');
