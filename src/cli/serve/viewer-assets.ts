// `floe serve`'s viewer page (issue 34) at /ui/: constant files built by `npm run build`
// (scripts/build-viewer.mjs) into dist/viewer/ and served WITHOUT the token, since they hold no
// data; the page then reads the repository through the raw route with the token it was given
// (docs/web.md, "The viewer"). Every answer carries a strict Content-Security-Policy: scripts and
// styles from this origin only (no inline script, no eval; WebAssembly may compile: the zstd decoder),
// data only from this origin, no framing, no forms, no plugins.
//   GET|HEAD /ui/            index.html          GET|HEAD /ui/viewer.js, viewer.css, decode-worker.js, chunks/<name>-<hash>.js
// Any other key under /ui/ is left to the ref route (a branch named `ui` keeps its Zarr keys).
import { readFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { fileURLToPath } from 'node:url';
import { gzip } from 'node:zlib';
import { promisify } from 'node:util';
import { HttpError } from '../../query/http-request.ts';

export const VIEWER_ROUTE = 'ui';

export const VIEWER_CSP = [
  "default-src 'none'", "script-src 'self' 'wasm-unsafe-eval'", "style-src 'self'", "img-src 'self' data: blob:",
  "connect-src 'self'", "base-uri 'none'", "form-action 'none'", "frame-ancestors 'none'", "object-src 'none'",
].join('; ');

const ASSETS: Readonly<Record<string, { file: string; type: string }>> = {
  '': { file: 'index.html', type: 'text/html; charset=utf-8' },
  'index.html': { file: 'index.html', type: 'text/html; charset=utf-8' },
  'viewer.js': { file: 'viewer.js', type: 'text/javascript; charset=utf-8' },
  'viewer.css': { file: 'viewer.css', type: 'text/css; charset=utf-8' },
  'decode-worker.js': { file: 'decode-worker.js', type: 'text/javascript; charset=utf-8' },
};

/** The bundle's chunks (code the page loads on first use), named by esbuild with a content hash. */
const CHUNK = /^chunks\/[\w-]+\.js$/;

/** Whether `key` (the path after `/ui/`) is one of the page's files. */
export const isViewerAsset = (key: string): boolean => Object.hasOwn(ASSETS, key) || CHUNK.test(key);

/** dist/viewer/ of the package: beside dist/cli/ when running the build, dist/ of the checkout when running sources. */
export function defaultViewerDir(): string {
  const fromBuild = import.meta.url.endsWith('.js');
  return fileURLToPath(new URL(fromBuild ? '../../viewer/' : '../../../dist/viewer/', import.meta.url));
}

const gzipped = promisify(gzip);

/** Whether the request takes gzip (and does not refuse it with q=0). */
function takesGzip(req: IncomingMessage): boolean {
  const accept = String(req.headers['accept-encoding'] ?? '');
  return /(^|,)\s*gzip\s*(;\s*q=(1(\.0*)?|0\.\d*[1-9]\d*))?\s*(,|$)/i.test(accept);
}

/**
 * Serves the page's files from `dir`, read (and gzipped for browsers that take it: a third of
 * the bytes) once and kept: they are about a megabyte and never change while serving.
 */
export function viewerAssets(dir: string = defaultViewerDir()) {
  const kept = new Map<string, Promise<{ plain: Uint8Array; gzip: Uint8Array }>>();
  const read = (file: string) => {
    let bytes = kept.get(file);
    if (!bytes) {
      bytes = readFile(`${dir}/${file}`).then(async (b) => ({ plain: new Uint8Array(b.buffer, b.byteOffset, b.byteLength), gzip: new Uint8Array(await gzipped(b, { level: 9 })) }));
      kept.set(file, bytes);
      bytes.catch(() => kept.delete(file)); // a build finished later is found on the next request
    }
    return bytes;
  };
  return async (req: IncomingMessage, res: ServerResponse, key: string): Promise<void> => {
    const method = req.method ?? 'GET';
    if (method !== 'GET' && method !== 'HEAD') throw new HttpError(405, 'METHOD_NOT_ALLOWED', 'the viewer\'s files are read-only: use GET or HEAD', { allow: 'GET, HEAD, OPTIONS' });
    const asset = CHUNK.test(key) ? { file: key, type: 'text/javascript; charset=utf-8' } : ASSETS[key];
    if (!asset) throw new HttpError(404, 'NOT_FOUND', `no viewer file ${JSON.stringify(key)}`);
    let both: { plain: Uint8Array; gzip: Uint8Array };
    try {
      both = await read(asset.file);
    } catch {
      throw new HttpError(404, 'NOT_FOUND', `the viewer page is not built (no ${asset.file} in ${dir}): run \`npm run build\``);
    }
    const zipped = takesGzip(req);
    const bytes = zipped ? both.gzip : both.plain;
    res.writeHead(200, {
      'content-type': asset.type,
      ...(zipped ? { 'content-encoding': 'gzip' } : {}),
      vary: 'Accept-Encoding',
      'content-length': String(bytes.length),
      'content-security-policy': VIEWER_CSP,
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
      'cross-origin-resource-policy': 'same-origin',
      'cache-control': 'no-cache',
    });
    res.end(method === 'HEAD' ? undefined : bytes);
  };
}

/** What a browser gets at `/` (it asks for HTML): a link to the page; programs asking for JSON get the refs as before. */
export function wantsHtml(req: IncomingMessage): boolean {
  const accept = req.headers.accept ?? '';
  return /\btext\/html\b/.test(accept) && !/\bapplication\/json\b/.test(accept);
}

export const ROOT_PAGE = '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>floe serve</title></head>' +
  '<body><p>This is a Floe repository served by <code>floe serve</code>. <a href="/ui/">Open the viewer</a>, ' +
  'or ask for JSON (<code>Accept: application/json</code>) for its branches and tags.</p></body></html>';
