// Where the browser build's decode worker script is (dist/browser/decode-worker.js, beside
// floe.js): src/browser.ts, which the build puts in floe.js, records it from its own URL, so the
// pool finds the worker wherever the page loads the bundle from. Unset under Node.

let url: URL | undefined;

/** Records the decode worker's URL (src/browser.ts does, once). */
export function setDecodeWorkerUrl(worker: URL): void {
  url = worker;
}

/** The decode worker's URL, or undefined when no browser entry set one. */
export function decodeWorkerUrl(): URL | undefined {
  return url;
}
