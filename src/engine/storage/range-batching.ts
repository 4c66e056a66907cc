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
export function withRangeCoalescing(inner: ObjectStorage, options: CoalesceOptions = {}, link?: () => LinkEstimate | undefined): ObjectStorage {
  const pending = new Map<string, Want[]>();
  let scheduled = false;

  const flush = (): void => {
    scheduled = false;
    const batches = [...pending];
    pending.clear();
    const coalescing = linkAware(options, link?.());
    for (const [key, wants] of batches) void fetchBatch(inner, key, wants, coalescing);
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

async function fetchBatch(inner: ObjectStorage, key: string, wants: Want[], options: CoalesceOptions): Promise<void> {
  const signals = new Set(wants.map((w) => w.signal));
  const shared = signals.size === 1 ? [...signals][0] : undefined;
  const request = shared ? { signal: shared } : undefined;
  await Promise.all(
    coalesceRanges(wants, options).map(async (span) => {
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
