// Key validation shared by every backend. A key is a '/'-separated relative path of non-empty
// segments. Anything that could escape a filesystem root or make two different strings name the
// same object (`a//b` vs `a/b`, `a/./b`, `a\b` on some systems) is refused here, once, so a
// backend never has to second-guess a key it is given.
import { floeError } from '../../errors.ts';
import { isWellFormedText } from '../../platform/host.ts';

// C0 controls, DEL and C1 controls: invisible in messages, meaningful to terminals and some filesystems.
// eslint-disable-next-line no-control-regex
const CONTROL_CHARS = /[\u0000-\u001f\u007f-\u009f]/;

/** Longest key accepted; far above any Icechunk or Zarr key, below common path limits. */
export const MAX_KEY_LENGTH = 1024;

function quote(key: string): string {
  return JSON.stringify(key.length > 200 ? `${key.slice(0, 200)}…` : key);
}

function invalid(key: string, why: string, where?: string): never {
  throw floeError('INVALID_KEY', `invalid storage key ${quote(key)}: ${why}`, where ? { where } : {});
}

/** Problems common to keys and prefixes; returns the reason or null. */
function characterProblem(key: string): string | null {
  if (key.length > MAX_KEY_LENGTH) return `longer than ${MAX_KEY_LENGTH} characters`;
  if (CONTROL_CHARS.test(key)) return 'contains a NUL or control character';
  if (key.includes('\\')) return 'contains a backslash';
  if (key.startsWith('/')) return "starts with '/' (keys are relative to the storage root)";
  if (key.includes('//')) return "contains an empty segment ('//')";
  // Unpaired surrogates cannot be encoded as UTF-8 and would be replaced, aliasing other keys.
  if (!isWellFormedText(key)) return 'contains an unpaired UTF-16 surrogate';
  return null;
}

function segmentProblem(segment: string): string | null {
  if (segment === '.' || segment === '..') return `contains a '${segment}' segment`;
  // A segment that percent-decodes (once or more) to a dot segment is traversal to any layer that
  // decodes keys (an HTTP server, a URL built from the key); no real key looks like one.
  if (segment.includes('%') && isEncodedDotSegment(segment)) return `contains an encoded '.' or '..' segment (${segment})`;
  return null;
}

function isEncodedDotSegment(segment: string): boolean {
  return percentDecodings(segment).some((decoded) => decoded === '.' || decoded === '..');
}

/**
 * What `segment` percent-decodes to, once, twice, … (up to `rounds`): each layer that decodes a key
 * or URL may decode it again, so double encoding is a classic traversal. The first decoding is
 * always listed; the list stops when decoding changes nothing or fails (no layer gets further).
 */
export function percentDecodings(segment: string, rounds = 4): string[] {
  const out: string[] = [];
  let text = segment;
  for (let round = 0; round < rounds; round++) {
    let decoded: string;
    try {
      decoded = decodeURIComponent(text);
    } catch {
      break;
    }
    if (round > 0 && decoded === text) break;
    out.push(decoded);
    text = decoded;
  }
  return out;
}

/** Throws INVALID_KEY unless `key` names one object safely. */
export function validateKey(key: string, where?: string): void {
  if (typeof key !== 'string') invalid(String(key), 'not a string', where);
  if (key === '') invalid(key, 'empty', where);
  const problem = characterProblem(key);
  if (problem) invalid(key, problem, where);
  if (key.endsWith('/')) invalid(key, "ends with '/' (that is a prefix, not an object)", where);
  for (const segment of key.split('/')) {
    const bad = segmentProblem(segment);
    if (bad) invalid(key, bad, where);
  }
}

/**
 * Throws INVALID_KEY unless `prefix` is a safe listing prefix: '' (everything), a directory
 * ending in '/', or a partial key (`chunks/c0` matches `chunks/c0/1`). The last, partial
 * segment may be anything a key segment may start with.
 */
export function validatePrefix(prefix: string, where?: string): void {
  if (typeof prefix !== 'string') invalid(String(prefix), 'not a string', where);
  if (prefix === '') return;
  const problem = characterProblem(prefix);
  if (problem) invalid(prefix, problem, where);
  const segments = prefix.split('/');
  // Every complete segment (all but the last) must be a valid key segment.
  for (const segment of segments.slice(0, -1)) {
    const bad = segmentProblem(segment);
    if (bad) invalid(prefix, bad, where);
  }
}

/** Throws INVALID_KEY unless `prefix` is '' or a directory prefix ending in '/'. */
export function validateDirPrefix(prefix: string, where?: string): void {
  validatePrefix(prefix, where);
  if (prefix !== '' && !prefix.endsWith('/')) {
    invalid(prefix, "a directory prefix must be '' or end with '/'", where);
  }
}

/** True when `key` is a valid key (no throw), for filters. */
export function isValidKey(key: string): boolean {
  try {
    validateKey(key);
    return true;
  } catch {
    return false;
  }
}
