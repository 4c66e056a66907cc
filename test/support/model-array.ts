// Moved to floe/testing (src/testing/model/array-model.ts and friends); kept as a re-export so
// tests written against the old path keep working.
export * from '../../src/testing/model/array-model.ts';
export { floatFromBits, halfBitsToFloatBits } from '../../src/testing/model/float-bits.ts';
export { rng } from '../../src/testing/arbitraries/seeded-random.ts';
