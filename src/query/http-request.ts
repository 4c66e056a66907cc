// Reading a request defensively, for the query server and `floe serve`: the URL (length, form,
// percent-encoding), the body (size, content coding, UTF-8) and the bearer token, each refused
// with its 4xx before any work starts; and the JSON error answers both servers send.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { floeError } from '../errors.ts';

/** An HTTP answer other than a FloeError's: a status, a code for the body, extra headers. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly headers: OutgoingHttpHeaders = {},
  ) {
    super(message);
  }
}

/**
 * The request's URL: at most `maxBytes` long, a path (origin form: `//host/x` is a path here, not
 * a host), and every percent-escape well formed and valid UTF-8 (so routes can decode freely).
 */
export function requestUrl(req: IncomingMessage, maxBytes: number): URL {
  const raw = req.url ?? '/';
  if (raw.length > maxBytes) throw new HttpError(414, 'URI_TOO_LONG', `the request URL is ${raw.length} bytes, over the limit of ${maxBytes}`);
  if (!raw.startsWith('/')) throw new HttpError(400, 'INVALID_ARGUMENT', 'the request target must be a path starting with /');
  try {
    decodeURIComponent(raw);
    return new URL(`http://localhost${raw}`);
  } catch {
    throw new HttpError(400, 'INVALID_ARGUMENT', 'the request URL has a malformed percent-encoding (% must be followed by two hex digits of valid UTF-8)');
  }
}

/** One path segment, percent-decoded (requestUrl has already checked the escapes). */
export function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new HttpError(400, 'INVALID_ARGUMENT', `malformed percent-encoding in ${JSON.stringify(segment)}`);
  }
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The body as text: identity coding only, at most `maxBytes`, valid UTF-8. */
export async function readBody(req: IncomingMessage, maxBytes: number): Promise<string> {
  const coding = req.headers['content-encoding'];
  if (coding !== undefined && coding.trim().toLowerCase() !== 'identity') {
    throw new HttpError(415, 'UNSUPPORTED_MEDIA_TYPE', `content-encoding ${JSON.stringify(coding)} is not accepted; send the query uncompressed`, { connection: 'close' });
  }
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > maxBytes) throw tooLarge(maxBytes);
  const parts: Buffer[] = [];
  let size = 0;
  try {
    for await (const part of req as AsyncIterable<Buffer>) {
      size += part.length;
      if (size > maxBytes) throw tooLarge(maxBytes);
      parts.push(part);
    }
  } catch (err) {
    if (err instanceof HttpError) throw err;
    // The client went away or the request timed out (Node has answered 408): nobody to tell.
    throw new HttpError(400, 'REQUEST_ABORTED', 'the request body did not arrive', { connection: 'close' });
  }
  try {
    return utf8.decode(Buffer.concat(parts));
  } catch {
    throw new HttpError(400, 'INVALID_ARGUMENT', 'the request body is not valid UTF-8');
  }
}

function tooLarge(maxBytes: number): HttpError {
  // The rest of the body is not read: the connection closes after the answer.
  return new HttpError(413, 'BODY_TOO_LARGE', `the request body is over the limit of ${maxBytes} bytes`, { connection: 'close' });
}

/** Checks `Authorization: Bearer <token>`; undefined `token` lets every request through. */
export type TokenCheck = (req: IncomingMessage) => 'ok' | 'missing' | 'wrong';

export function bearerTokenCheck(token: string | undefined): TokenCheck {
  if (token === undefined) return () => 'ok';
  if (!/^[\x21-\x7e]+$/.test(token)) {
    throw floeError('INVALID_ARGUMENT', 'the server token must be one or more printable ASCII characters without spaces (it travels in an HTTP header)');
  }
  const expected = digest(token);
  return (req) => {
    const match = /^Bearer +(\S+) *$/i.exec(req.headers.authorization ?? '');
    const given = match?.[1];
    if (given === undefined) return 'missing';
    // Digests have equal lengths, so the comparison takes the same time whatever was sent.
    return timingSafeEqual(digest(given), expected) ? 'ok' : 'wrong';
  };
}

const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest();

export function unauthorized(verdict: 'missing' | 'wrong'): HttpError {
  const challenge = verdict === 'wrong' ? 'Bearer realm="floe", error="invalid_token"' : 'Bearer realm="floe"';
  const message = verdict === 'wrong' ? 'the bearer token is wrong' : 'this server needs a bearer token: send Authorization: Bearer <token>';
  return new HttpError(401, 'UNAUTHORIZED', message, { 'www-authenticate': challenge });
}

/** Sends `{"error": {code, message}}` unless an answer has started (then the socket is cut). */
export function sendError(res: ServerResponse, status: number, code: string, message: string, headers: OutgoingHttpHeaders = {}, headOnly = false): void {
  if (res.headersSent || res.destroyed) {
    res.destroy();
    return;
  }
  const body = JSON.stringify({ error: { code, message } });
  res.writeHead(status, { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'cache-control': 'no-cache' });
  res.end(headOnly ? undefined : body);
}
