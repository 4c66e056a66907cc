// What the browser build's stand-ins for Node-only modules throw (issue 31): a local directory,
// a local file or a SQLite file has no meaning in a page, so those backends refuse up front with
// UNSUPPORTED and say what works there instead.
import { floeError, type FloeError } from '../../errors.ts';

/** UNSUPPORTED for `what` (e.g. `a local directory (…)`) in the browser build. */
export function notInBrowser(what: string): FloeError {
  return floeError('UNSUPPORTED', `${what} needs Node's file system; the browser build reads http(s):// URLs and memory storage (Storage.newHttp, Storage.newInMemory, openStore('https://…'))`, {
    details: { reason: 'browser-build' },
  });
}
