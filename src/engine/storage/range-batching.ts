// Range batching for remote storages: bounded ranged reads of one object that arrive in the same
// turn of the event loop (the chunks of one read start together) are merged by coalesceRanges
// into fewer requests, each answer sliced back to its callers. Over HTTP a round trip costs far
// more than a few bytes between two chunks of a packed chunk object or two inner chunks of a
// shard, so a read of N adjacent chunks becomes one request instead of N. Given the link's
// measured round trip and rate (`link`), a gap is bridged whenever sending its bytes takes less
// time than a round trip (gap < round trip x rate), whatever the overread: on a fast link with
// a long round trip, a box that wants one inner chunk in eight is still read in a few requests
// (each at most 16 MiB, so memory per request stays bounded and long reads stay parallel).
// Only `get` of `{ offset, length }` ranges is batched; every other call passes through. A merged
// request carries the callers' signal when they share one, else none (each caller's own signal
// still ends its wait: ABORTED).
import { abortable } from '../abort.ts';
import { coalesceRanges, DEFAULT_GAP_BYTES, type CoalesceOptions } from './coalesce.ts';
import type { LinkEstimate } from './http-options.ts';
import type { AbortOptions, ByteRange, GetResult, ObjectStorage } from './types.ts';

interface Want {
  readonly offset: number;
  readonly length: number;
  readonly signal: AbortSignal | undefined;
  resolve(result: GetResult | null): void;
  reject(err: unknown): void;
}

/** Runs `flush` after the current turn's microtasks and I/O callbacks (setImmediate, or a 0 ms timer). */
const nextTurn: (flush: () => void) => void =
  typeof (globalThis as { setImmediate?: unknown }).setImmediate === 'function'
    ? (flush) => (globalThis as unknown as { setImmediate(f: () => void): void }).setImmediate(flush)
    : (flush) => setTimeout(flush, 0);

/**
 * Wraps a storage so bounded ranged `get`s of one key arriving together are coalesced
 * (`coalesceRanges`: gaps up to `gapBytes`, overread up to `maxOverread`) into fewer requests.
 */
/**
 * What a backend offers range batching besides `get`: its measured link, and several ranges of one
 * object in one request (HTTP multi-range), when it currently accepts them.
 */
export interface BatchingBackend {
  link?(): LinkEstimate | undefined;
  multiRange?(): ((key: string, ranges: readonly { offset: number; length: number }[], options?: AbortOptions) => Promise<Uint8Array[] | null>) | undefined;
}

/** Ranges per multi-range request: a `Range` header stays far below servers' 8 KiB header limits. */
const MAX_RANGES_PER_REQUEST = 100;

export function withRangeCoalescing(inner: ObjectStorage, options: CoalesceOptions = {}, backend: BatchingBackend = {}): ObjectStorage {
  const pending = new Map<string, Want[]>();
  let scheduled = false;

  const flush = (): void => {
    scheduled = false;
    const batches = [...pending];
    pending.clear();
    const multi = backend.multiRange?.();
    // With multi-range requests, only near ranges are merged (no overread to speak of); without,
    // gaps are sized to the link.
    const coalescing = multi ? options : linkAware(options, backend.link?.());
    for (const [key, wants] of batches) void fetchBatch(inner, key, wants, coalescing, multi);
  };

  const get = (key: string, range?: ByteRange, request?: AbortOptions): Promise<GetResult | null> => {
    if (!range || 'suffixLength' in range || range.length === undefined || range.length === 0) return inner.get(key, range, request);
    const signal = request?.signal;
    const answer = new Promise<GetResult | null>((resolve, reject) => {
      const wants = pending.get(key) ?? [];
      wants.push({ offset: range.offset, length: range.length!, signal, resolve, reject });
      pending.set(key, wants);
      if (!scheduled) {
        scheduled = true;
        nextTurn(flush);
      }
    });
    return signal ? abortable(answer, signal, key) : answer;
  };

  return { ...forwarded(inner), get };
}

/** Longest request link-aware batching makes: memory per request stays bounded, and requests stay parallel. */
const MAX_LINK_AWARE_SPAN = 16 * 1024 * 1024;

/** The options for this batch: the caller's, or gaps sized to the link when it is known and the caller set none. */
export function linkAware(options: CoalesceOptions, link: LinkEstimate | undefined): CoalesceOptions {
  if (!link || options.gapBytes !== undefined || options.maxOverread !== undefined) return options;
  return { gapBytes: Math.max(DEFAULT_GAP_BYTES, Math.floor(link.roundTripMs * link.bytesPerMs)), maxOverread: Number.POSITIVE_INFINITY, maxSpanBytes: MAX_LINK_AWARE_SPAN };
}

/** The storage's methods bound to it (the wrapper replaces `get` only). */
function forwarded(inner: ObjectStorage): ObjectStorage {
  return {
    kind: inner.kind,
    get: (key, range, options) => inner.get(key, range, options),
    head: (key, options) => inner.head(key, options),
    put: (key, bytes, options) => inner.put(key, bytes, options),
    copy: (from, to, options) => inner.copy(from, to, options),
    list: (prefix, options) => inner.list(prefix, options),
    listDir: (prefix, options) => inner.listDir(prefix, options),
    delete: (keys, options) => inner.delete(keys, options),
    close: () => inner.close(),
    [Symbol.asyncDispose]: () => inner.close(),
  };
}

type MultiRange = NonNullable<ReturnType<NonNullable<BatchingBackend['multiRange']>>>;

async function fetchBatch(inner: ObjectStorage, key: string, wants: Want[], options: CoalesceOptions, multi: MultiRange | undefined): Promise<void> {
  const signals = new Set(wants.map((w) => w.signal));
  const shared = signals.size === 1 ? [...signals][0] : undefined;
  const request = shared ? { signal: shared } : undefined;
  const spans = coalesceRanges(wants, options);
  if (multi && spans.length > 1) {
    await Promise.all(chunked(spans, MAX_RANGES_PER_REQUEST).map((group) => fetchMulti(inner, key, wants, group, multi, request)));
    return;
  }
  await Promise.all(
    spans.map(async (span) => {
      const inSpan = wants.filter((w) => w.offset >= span.offset && w.offset + w.length <= span.offset + span.length);
      try {
        const result = await inner.get(key, { offset: span.offset, length: span.length }, request);
        for (const w of inSpan) {
          w.resolve(result && { bytes: result.bytes.subarray(w.offset - span.offset, w.offset - span.offset + w.length), version: result.version });
        }
      } catch (err) {
        for (const w of inSpan) w.reject(err);
      }
    }),
  );
}

function chunked<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/**
 * One multi-range request for `spans`; its callers get their slices. A failure of the request
 * (after which the host is asked one range at a time) falls back to one `get` per span, through
 * the wrapped storage and its retries, so a caller sees what an unbatched read would.
 */
async function fetchMulti(inner: ObjectStorage, key: string, wants: Want[], spans: readonly { offset: number; length: number }[], multi: MultiRange, request: AbortOptions | undefined): Promise<void> {
  let got: (Uint8Array | null)[] | null;
  try {
    got = await multi(key, spans, request);
  } catch {
    got = await Promise.all(spans.map(async (s) => (await inner.get(key, s, request).catch(() => null))?.bytes ?? null));
  }
  for (const [i, span] of spans.entries()) {
    const bytes = got?.[i] ?? null;
    for (const w of wants) {
      if (w.offset < span.offset || w.offset + w.length > span.offset + span.length) continue;
      if (got === null) w.resolve(null);
      else if (bytes === null) void inner.get(key, { offset: w.offset, length: w.length }, request).then(w.resolve, w.reject);
      else w.resolve({ bytes: bytes.subarray(w.offset - span.offset, w.offset - span.offset + w.length), version: '' });
    }
  }
}
