// Where a location string points: the one parser of schemes, so `openStore`, `Repository.open`
// and the CLI's `--repo` agree on what `https://…`, `s3://…`, `file://…` and a plain path mean,
// and refuse the same unknown schemes with the same list of known ones.
import { floeError } from '../../errors.ts';

/** A parsed location: a local path, an S3 bucket and prefix, or an HTTP(S) base URL. */
export type Location =
  | { readonly kind: 'path'; readonly path: string }
  | { readonly kind: 's3'; readonly bucket: string; readonly prefix: string }
  | { readonly kind: 'http'; readonly url: string };

/** The schemes a location may have (a location without one is a local path). */
export const KNOWN_SCHEMES = ['file', 's3', 'http', 'https'] as const;

const SCHEME = /^([A-Za-z][A-Za-z0-9+.-]*):\/\//;

/** The scheme of `location` in lower case, or undefined for a plain path. */
export function schemeOf(location: string): string | undefined {
  return SCHEME.exec(location)?.[1]?.toLowerCase();
}

/** Parses a location; INVALID_ARGUMENT for an unknown scheme or a malformed URL, naming the known ones. */
export function parseLocation(location: string): Location {
  const scheme = schemeOf(location);
  if (scheme === undefined) return { kind: 'path', path: location };
  switch (scheme) {
    case 'http':
    case 'https':
      return { kind: 'http', url: location };
    case 'file': {
      let url: URL;
      try {
        url = new URL(location);
      } catch (err) {
        throw floeError('INVALID_ARGUMENT', `not a file URL: ${JSON.stringify(location)}`, { cause: err });
      }
      if (url.host !== '' && url.host !== 'localhost') throw floeError('INVALID_ARGUMENT', `file URLs name a local path (file:///dir), got host ${JSON.stringify(url.host)} in ${JSON.stringify(location)}`);
      return { kind: 'path', path: decodeURIComponent(url.pathname) };
    }
    case 's3': {
      const match = /^s3:\/\/([^/]+)\/?(.*?)\/?$/i.exec(location);
      if (!match?.[1]) throw floeError('INVALID_ARGUMENT', `an S3 location is s3://bucket[/prefix], got ${JSON.stringify(location)}`);
      return { kind: 's3', bucket: match[1], prefix: match[2] ?? '' };
    }
    default:
      throw floeError('INVALID_ARGUMENT', `unknown location scheme ${JSON.stringify(`${scheme}://`)} in ${JSON.stringify(location)}; known: ${KNOWN_SCHEMES.map((s) => `${s}://`).join(', ')}, or a local path`);
  }
}
