// Runs LZ4 tests once per backend: lz4-napi when it loads here, and Floe's TypeScript LZ4.
import { afterAll, beforeAll, describe } from 'vitest';
import { loadLz4Backend, lz4NapiAvailable, selectLz4Backend, type Lz4Backend, type Lz4BackendName } from '../../src/format/codecs/lz4-backend.ts';

export const LZ4_BACKENDS: { which: Lz4BackendName; available: boolean }[] = (['napi', 'js'] as const).map((which) => ({
  which,
  available: which === 'js' || lz4NapiAvailable(),
}));

/** `describe` once per backend, selected for Floe's LZ4 users for the block; lz4-napi's skipped where it does not load. */
export function describeEachLz4Backend(title: string, body: (backend: Lz4Backend) => void): void {
  for (const c of LZ4_BACKENDS) {
    describe.skipIf(!c.available)(`${title} [${c.which}]`, () => {
      beforeAll(() => selectLz4Backend(c.which));
      afterAll(() => selectLz4Backend('auto'));
      body(loadLz4Backend(c.available ? c.which : 'js'));
    });
  }
}
