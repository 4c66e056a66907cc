// Matching a virtual chunk location to the container that may serve it, on normalised URLs and
// whole path segments. A container's credentials and headers go to every URL it matches, so the
// match must agree with what the server will see: a textual prefix test let
// `https://host/allowed/../secret/x` (or `%2e%2e`) match the container for `/allowed/`.
//
// Both the container prefix and the location are parsed with the WHATWG URL parser (the one
// `fetch` uses, so the URL checked is the URL requested): scheme and host lowercased (special
// schemes), default ports dropped, `.`/`..` segments and their percent-encoded forms resolved.
// Percent-escapes of unreserved characters are then decoded and the others upper-cased (RFC
// 3986 §6.2.2), and segments compared one by one. Anything a server might read differently from
// the parser is refused rather than guessed at (fail closed): whitespace or control characters
// (the parser drops them silently), backslashes (a path separator to some servers), user info,
// empty segments, and segments that decode to a separator or a dot segment (`%2F`, `%252e%252e`).
//
// file:// locations are also checked on the real filesystem: a symlink under the container's
// directory that points outside it is refused (`realFileWithin`). Node's file modules load on that
// path only (loadPackage), so the browser build, which has no local files, refuses it there.
import type * as NodeFs from 'node:fs/promises';
import type * as NodePath from 'node:path';
import type * as NodeUrl from 'node:url';
import { loadPackage } from '../optional-dependency.ts';
import { percentDecodings } from '../engine/storage/keys.ts';

/** A URL as the matcher compares it. */
export interface NormalizedUrl {
  /** `scheme://host[:port]` as the WHATWG parser gives it (lowercased, default port dropped). */
  readonly origin: string;
  /** Path segments, unreserved escapes decoded, other escapes upper-cased; no trailing ''. */
  readonly segments: readonly string[];
  /** True when the path ends with '/' (a directory prefix). */
  readonly directory: boolean;
  /** The parsed URL's text: what is requested. */
  readonly href: string;
}

/** A normalised URL, or why the text cannot be matched safely. */
export type UrlVerdict = { readonly ok: true; readonly url: NormalizedUrl } | { readonly ok: false; readonly why: string };

/** Longest URL accepted; far above real object URLs (including presigned query strings). */
export const MAX_URL_LENGTH = 8192;

// eslint-disable-next-line no-control-regex
const WHITESPACE_OR_CONTROL = /[\u0000-\u0020\u007f-\u009f]/;
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
const UNRESERVED = /[A-Za-z0-9\-._~]/;

const refuse = (why: string): UrlVerdict => ({ ok: false, why });

/**
 * Normalises a location (`kind: 'location'`, may carry a query string, e.g. a presigned URL) or
 * a container prefix (`kind: 'prefix'`, no query or fragment).
 */
export function normalizeUrl(text: string, kind: 'location' | 'prefix'): UrlVerdict {
  if (typeof text !== 'string') return refuse('is not a string');
  if (text.length > MAX_URL_LENGTH) return refuse(`is longer than ${MAX_URL_LENGTH} characters`);
  if (WHITESPACE_OR_CONTROL.test(text)) return refuse('contains whitespace or a control character');
  if (text.includes('\\')) return refuse('contains a backslash');
  // Checked on the text, before the parser resolves `a//..` to `a/`: a server collapsing '//'
  // first would resolve the same text to `a/..`, one level higher.
  const rawPath = /^[a-zA-Z][a-zA-Z0-9+.-]*:\/\/[^/?#]*([^?#]*)/.exec(text)?.[1] ?? '';
  if (rawPath.includes('//')) return refuse("contains an empty path segment ('//')");
  // Also on the text: the parser resolves `.%2e` and removes the segment before it, which may be
  // one a server decodes into more dot segments (`%252e%252e/.%2e`). A dot segment encoded at
  // most once is the parser's to resolve, the same way a server does.
  for (const segment of rawPath.split('/')) {
    const problem = segmentProblem(segment, true);
    if (problem) return refuse(problem);
  }
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return refuse('is not a valid absolute URL');
  }
  if (url.username !== '' || url.password !== '') return refuse('carries user info (`user@host`)');
  if (url.hash !== '' || text.includes('#')) return refuse('has a fragment');
  if (kind === 'prefix' && (url.search !== '' || text.includes('?'))) return refuse('has a query string');
  // An opaque path (`s3:bucket/key`, `mailto:x`) has no segments to compare.
  if (!url.pathname.startsWith('/') || !text.slice(url.protocol.length).startsWith('//')) return refuse("has no '//' authority");
  const raw = url.pathname.split('/').slice(1);
  const directory = raw.length > 0 && raw[raw.length - 1] === '';
  if (directory) raw.pop();
  const segments: string[] = [];
  for (const segment of raw) {
    if (segment === '') return refuse("contains an empty path segment ('//')");
    const problem = segmentProblem(segment);
    if (problem) return refuse(problem);
    segments.push(normalizeEscapes(segment));
  }
  const origin = `${url.protocol}//${url.host}`;
  return { ok: true, url: { origin, segments, directory, href: url.href } };
}

/** Decodes escapes of unreserved characters and upper-cases the rest (RFC 3986 §6.2.2.1–2). */
function normalizeEscapes(segment: string): string {
  return segment.replace(/%([0-9A-Fa-f]{2})/g, (_, hex: string) => {
    const char = String.fromCharCode(parseInt(hex, 16));
    return UNRESERVED.test(char) ? char : `%${hex.toUpperCase()}`;
  });
}

/**
 * A segment that some server could read as a separator or a dot segment, after decoding it once
 * or several times (double-encoding is a classic traversal): its reason, or null.
 */
function segmentProblem(segment: string, rawText = false): string | null {
  for (const [round, decoded] of percentDecodings(segment).entries()) {
    if ((decoded === '.' || decoded === '..') && !(rawText && round === 0)) return `has a path segment ${JSON.stringify(segment)} that decodes to '${decoded}'`;
    if (decoded.includes('/') || decoded.includes('\\')) return `has a path segment ${JSON.stringify(segment)} that decodes to a path separator`;
    if (CONTROL.test(decoded)) return `has a path segment ${JSON.stringify(segment)} that decodes to a control character`;
  }
  return null;
}

/**
 * How many path segments of `location` the container prefix covers, or -1 when it does not
 * serve it: same origin, and the prefix's segments are the location's first segments. A
 * directory prefix (`.../data/`) serves only what is strictly below it.
 */
export function matchLength(prefix: NormalizedUrl, location: NormalizedUrl): number {
  if (prefix.origin !== location.origin) return -1;
  const n = prefix.segments.length;
  if (location.segments.length < n || (prefix.directory && location.segments.length === n)) return -1;
  for (let i = 0; i < n; i++) if (prefix.segments[i] !== location.segments[i]) return -1;
  return n;
}

/**
 * The real path of the local file behind a `file://` location, checked to lie inside the
 * container's path once symlinks are resolved: a symlink under `file:///data/` pointing at
 * `/etc` must not make `/etc` readable. `'missing'` when the file (or the container's directory)
 * does not exist, `'outside'` when it resolves elsewhere.
 */
export async function realFileWithin(container: NormalizedUrl, location: NormalizedUrl): Promise<string | 'missing' | 'outside'> {
  const { realpath } = loadPackage<typeof NodeFs>('node:fs/promises');
  const { fileURLToPath } = loadPackage<typeof NodeUrl>('node:url');
  const path = loadPackage<typeof NodePath>('node:path');
  let base: string;
  let file: string;
  try {
    base = await realpath(fileURLToPath(container.href));
    file = await realpath(fileURLToPath(location.href));
  } catch {
    return 'missing';
  }
  // '' is the prefix naming the file itself (a prefix need not be a directory).
  const inside = path.relative(base, file);
  return inside === '' || (!inside.startsWith(`..${path.sep}`) && inside !== '..' && !path.isAbsolute(inside)) ? file : 'outside';
}
