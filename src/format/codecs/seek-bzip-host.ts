// Where bz2.ts gets seek-bzip (CommonJS, pure JS) under Node: required on the first bz2 decode,
// not on `import 'floe'` (the package costs ~97 KB of heap). The browser build takes
// seek-bzip-host.browser.ts instead (the package as a chunk of its own).
import { loadPackage } from '../../optional-dependency.ts';

/** The part of seek-bzip Floe uses: `output` is a sink with writeByte/getBuffer (every decoded byte goes through writeByte). */
export interface SeekBzip {
  decode(input: Uint8Array, output: { writeByte(byte: number): void; getBuffer(): Uint8Array }): Uint8Array;
}

let seekBzipModule: SeekBzip | undefined;

/** Nothing to fetch under Node: seekBzip requires the package on the first bz2 decode. */
export async function prepareSeekBzip(): Promise<void> {}

/** seek-bzip, loaded on first use. */
export function seekBzip(): SeekBzip {
  seekBzipModule ??= loadPackage<SeekBzip>('seek-bzip');
  return seekBzipModule;
}
