// The S3 backend and Storage.newS3 against a loopback TCP server instead of a gateway: request
// timeouts really abort the HTTP request, retries are on by default, anonymous requests are
// unsigned, and every option newS3 cannot honour is refused with a typed error.
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { S3Storage, Storage, isFloeError, type S3Credentials } from '../../src/index.ts';
import { expectCode } from './contract.ts';
import { s3ErrorResponse, startLoopbackServer, type LoopbackServer } from './loopback-server.ts';

const keys = { accessKeyId: 'AKIDLOOPBACK', secretAccessKey: 'loopback-secret' };
const statics: S3Credentials = { type: 'Static', field0: keys };
let server: LoopbackServer | undefined;

// The backend loads the AWS SDK on its first request; load it now so timings measure requests.
beforeAll(async () => {
  await import('@aws-sdk/client-s3');
});

afterEach(async () => {
  await server?.stop();
  server = undefined;
});

async function waitFor(condition: () => boolean, ms: number): Promise<boolean> {
  for (const deadline = Date.now() + ms; Date.now() < deadline; ) {
    if (condition()) return true;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return condition();
}

async function failureOf(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    (value) => expect.unreachable(`expected a failure, got ${JSON.stringify(value)}`),
    (err: unknown) => err,
  );
}

describe('S3 requests against a server that never answers', () => {
  it('abort after requestTimeoutMs with TIMEOUT and close the connection', async () => {
    server = await startLoopbackServer();
    // Long enough for the request to reach the server even on a loaded machine (the deadline
    // starts before the SDK signs and connects), far below the 30 s default.
    const storage = new S3Storage({ bucket: 'b', endpoint: server.endpoint, forcePathStyle: true, credentials: keys, requestTimeoutMs: 2000 });
    const started = performance.now();
    await expectCode(storage.get('k'), 'TIMEOUT');
    const elapsed = performance.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(1950);
    expect(elapsed).toBeLessThan(15_000);
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]).toMatch(/^GET \/b\/k[ ?]/);
    // Cancelled, not abandoned: the client hung up.
    expect(await waitFor(() => server!.closedByClient === 1, 2000)).toBe(true);

    // A conditional write with no answer is settled by re-reading, which times out too: the
    // write is reported as failed (retryable), never as done.
    const err = await failureOf(storage.put('k', new Uint8Array([1]), { ifMatch: 'abc' }));
    expect(isFloeError(err, 'TIMEOUT', 'PRECONDITION_FAILED')).toBe(true);
    expect(server.requests.map((r) => r.split(' ')[0])).toEqual(['GET', 'PUT', 'HEAD']);
    await storage.close();
  });

  it("abort a request in flight when the caller's signal fires: ABORTED, the connection closed", async () => {
    server = await startLoopbackServer();
    const storage = new S3Storage({ bucket: 'b', endpoint: server.endpoint, forcePathStyle: true, credentials: keys });
    const controller = new AbortController();
    const reason = new Error('user pressed stop');
    const aborted = failureOf(storage.get('k', undefined, { signal: controller.signal }));
    expect(await waitFor(() => server!.requests.length === 1, 10_000)).toBe(true);
    controller.abort(reason);
    const err = await aborted;
    expect(isFloeError(err, 'ABORTED') ? [err.details, err.cause] : err).toEqual([{ timedOut: false, reason: 'user pressed stop' }, reason]);
    expect(await waitFor(() => server!.closedByClient === 1, 2000)).toBe(true);
    // A deadline through the signal (far below requestTimeoutMs, 30 s) is a timed-out ABORTED.
    const late = await failureOf(storage.head('k', { signal: AbortSignal.timeout(300) }));
    expect(isFloeError(late, 'ABORTED') && late.details.timedOut).toBe(true);
    await storage.close();
  });

  it('Storage.newS3 retries with backoff by default, and can be told not to', async () => {
    server = await startLoopbackServer();
    const endpointUrl = server.endpoint;
    // Each attempt is a new HTTP request; on a loaded machine one may time out before it reaches
    // the server, so the server's count is bounded by the attempts, which onRetry counts exactly.
    const delays: number[] = [];
    const retried = await Storage.newS3('b', null, statics, { endpointUrl, forcePathStyle: true, requestTimeoutMs: 600, retries: { onRetry: (r) => delays.push(r.delayMs) } });
    await expectCode(retried.backend.get('k'), 'TIMEOUT');
    expect(delays).toHaveLength(3); // the default maxAttempts: 4
    delays.forEach((ms, i) => expect(ms).toBeLessThanOrEqual(50 * 2 ** i)); // full jitter under a doubling cap
    expect(server.requests.length).toBeGreaterThanOrEqual(2);
    expect(server.requests.length).toBeLessThanOrEqual(4);

    const seen = server.requests.length;
    const once = await Storage.newS3('b', null, statics, { endpointUrl, forcePathStyle: true, requestTimeoutMs: 600, retries: false });
    await expectCode(once.backend.get('k'), 'TIMEOUT');
    expect(server.requests.length).toBeLessThanOrEqual(seen + 1);
    for (const s of [retried, once]) await s.backend.close();
  });

  it('Storage.newS3 operationTimeoutMs bounds a whole call', async () => {
    server = await startLoopbackServer();
    const storage = await Storage.newS3('b', null, statics, { endpointUrl: server.endpoint, forcePathStyle: true, requestTimeoutMs: 20_000, operationTimeoutMs: 200 });
    const started = performance.now();
    await expectCode(storage.backend.head('k'), 'TIMEOUT');
    expect(performance.now() - started).toBeLessThan(3000);
    await storage.backend.close();
  });
});

describe('Storage.newS3 credentials', () => {
  const notFound = s3ErrorResponse(404, 'Not Found', 'NoSuchKey');

  it('signs requests with static credentials and sends anonymous ones unsigned', async () => {
    server = await startLoopbackServer(notFound);
    const endpointUrl = server.endpoint;
    const signed = await Storage.newS3('b', 'p', statics, { endpointUrl, forcePathStyle: true, retries: false });
    expect(await signed.backend.get('k')).toBeNull();
    expect(server.requests[0]).toMatch(/^GET \/b\/p\/k[ ?]/);
    expect(server.requests[0]).toMatch(/^authorization: AWS4-HMAC-SHA256 Credential=AKIDLOOPBACK\//im);

    const byCredentials = await Storage.newS3('b', null, { type: 'Anonymous' }, { endpointUrl, forcePathStyle: true, retries: false });
    const byOption = await Storage.newS3('b', null, null, { endpointUrl, forcePathStyle: true, anonymous: true, retries: false });
    expect(await byCredentials.backend.get('k')).toBeNull();
    expect(await byOption.backend.get('k')).toBeNull();
    expect(server.requests).toHaveLength(3);
    for (const head of server.requests.slice(1)) expect(head).not.toMatch(/^(authorization|x-amz-security-token|x-amz-date):/im);
    for (const s of [signed, byCredentials, byOption]) await s.backend.close();
  });
});

describe('Storage.newS3 refuses what it cannot honour', () => {
  const refused: Array<[string, () => Promise<unknown>]> = [
    ['an unknown option', () => Storage.newS3('b', null, statics, { requesterPays: true } as never)],
    ['a mistyped option', () => Storage.newS3('b', null, statics, { forcePathStyle: 'yes' } as never)],
    ['an http endpoint with allowHttp: false', () => Storage.newS3('b', null, statics, { endpointUrl: 'http://127.0.0.1:1', allowHttp: false })],
    ['an endpoint that is not http(s)', () => Storage.newS3('b', null, statics, { endpointUrl: 'ftp://127.0.0.1:1' })],
    ['an endpoint that is not a URL', () => Storage.newS3('b', null, statics, { endpointUrl: '127.0.0.1:7480' })],
    ['anonymous with static credentials', () => Storage.newS3('b', null, statics, { anonymous: true })],
    ['anonymous: false with Anonymous credentials', () => Storage.newS3('b', null, { type: 'Anonymous' }, { anonymous: false })],
    ['unknown credentials', () => Storage.newS3('b', null, { type: 'FromFile' } as never)],
    ['static credentials without a secret', () => Storage.newS3('b', null, { type: 'Static', field0: { accessKeyId: 'a' } } as never)],
    ['an unknown copy mode', () => Storage.newS3('b', null, statics, { copyConditions: 'trust' } as never)],
    ['a zero request timeout', () => Storage.newS3('b', null, statics, { requestTimeoutMs: 0 })],
    ['a negative operation timeout', () => Storage.newS3('b', null, statics, { operationTimeoutMs: -1 })],
    ['zero retry attempts', () => Storage.newS3('b', null, statics, { retries: { maxAttempts: 0 } })],
    ['an empty bucket name', () => Storage.newS3('', null, statics)],
    ['an unsafe prefix', () => Storage.newS3('b', '../up', statics)],
  ];
  it.each(refused)('%s', async (_what, make) => {
    const err = await failureOf(make());
    expect(isFloeError(err, 'INVALID_ARGUMENT', 'INVALID_KEY'), String(err)).toBe(true);
  });

  it('accepts an https endpoint with allowHttp: false and every documented option', async () => {
    const storage = await Storage.newS3('b', 'a/b', statics, {
      region: 'eu-west-1', endpointUrl: 'https://s3.example.invalid', allowHttp: false, anonymous: false, forcePathStyle: true,
      unquotedIfMatch: true, copyConditions: 'server', requestTimeoutMs: 1000, operationTimeoutMs: 5000, retries: { maxAttempts: 2 },
    });
    expect(storage.backend.kind).toBe('s3');
    await storage.backend.close();
  });
});
