// seek-bzip in the browser build (replaces seek-bzip-host.ts there): the package, bundled from
// CommonJS, is a chunk of its own, fetched by prepareSeekBzip when a bz2 codec loads
// (registry.ts), so decoding stays synchronous. It allocates small work arrays with
// `new Buffer(n)`; scripts/build-browser.mjs gives its files a Uint8Array stand-in (pages have no
// Buffer). Its default output sink (a growing Buffer) is never used: bz2.ts passes its own.
import { floeError } from '../../errors.ts';
import type { SeekBzip } from './seek-bzip-host.ts';

let loaded: SeekBzip | undefined;

/** Fetches the seek-bzip chunk (once). */
export async function prepareSeekBzip(): Promise<void> {
  loaded ??= (await import('seek-bzip')).default as SeekBzip;
}

/** seek-bzip; UNSUPPORTED when prepareSeekBzip has not run. */
export function seekBzip(): SeekBzip {
  if (loaded === undefined) throw floeError('UNSUPPORTED', 'bz2: the seek-bzip chunk was not loaded (prepareSeekBzip)', { details: { reason: 'browser-build' } });
  return loaded;
}
