// Which zstd backend this thread uses, for the decode pool to hand to the workers it starts,
// without the pool loading the zstd backends with the package: zstd-backend.ts registers itself
// here when it loads (with the first array whose codecs name zstd). Not loaded means no zstd has
// been used here, and a worker then chooses by the same rules (FLOE_ZSTD, the same packages).
import type { ZstdBackendName } from './zstd-types.ts';

let current: (() => ZstdBackendName | undefined) | undefined;

export function registerZstdChoice(choice: () => ZstdBackendName | undefined): void {
  current = choice;
}

/** This thread's zstd backend (chosen now if not yet), or undefined: the worker chooses. */
export function zstdChoiceForWorkers(): ZstdBackendName | undefined {
  return current?.();
}
