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
import { wrapStorage } from './wrap.ts';

/** A bounded byte range of an object. */
type ByteSpan = { readonly offset: number; readonly length: number };

/** Several ranges of one object read in one request, in the order asked, and the object's version. */
export interface MultiRangeResult {
  readonly bytes: Uint8Array[];
  readonly version: string;
}

interface Want {
  readonly offset: number;
  readonly length: number;
  readonly signal: AbortSignal | undefined;
  resolve(result: GetResult | null): void;
  reject(err: unknown): void;
}

/** Runs `flush` after the current turn's microtasks and I/O callbacks (setImmediate, or a 0 ms timer). */
export const nextTurn: (flush: () => void) => void =
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
  multiRange?(): ((key: string, ranges: readonly ByteSpan[], options?: AbortOptions) => Promise<MultiRangeResult | null>) | undefined;
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

  // Every other call passes straight through.
  return { ...wrapStorage(inner, (_call, run) => run()), get };
}

/** Longest request link-aware batching makes: memory per request stays bounded, and requests stay parallel. */
const MAX_LINK_AWARE_SPAN = 16 * 1024 * 1024;

/** The options for this batch: the caller's, or gaps sized to the link when it is known and the caller set none. */
export function linkAware(options: CoalesceOptions, link: LinkEstimate | undefined): CoalesceOptions {
  if (!link || options.gapBytes !== undefined || options.maxOverread !== undefined) return options;
  return { gapBytes: Math.max(DEFAULT_GAP_BYTES, Math.floor(link.roundTripMs * link.bytesPerMs)), maxOverread: Number.POSITIVE_INFINITY, maxSpanBytes: MAX_LINK_AWARE_SPAN };
}

type MultiRange = NonNullable<ReturnType<NonNullable<BatchingBackend['multiRange']>>>;

async function fetchBatch(inner: ObjectStorage, key: string, wants: Want[], options: CoalesceOptions, multi: MultiRange | undefined): Promise<void> {
  const signals = new Set(wants.map((w) => w.signal));
  const shared = signals.size === 1 ? [...signals][0] : undefined;
  const request = shared ? { signal: shared } : undefined;
  const spans = coalesceRanges(wants, options).map(({ offset, length }) => ({ offset, length }));
  const groups = multi && spans.length > 1 ? chunked(spans, MAX_RANGES_PER_REQUEST) : spans.map((span) => [span]);
  await Promise.all(groups.map(async (group) => {
    const results = await spanResults(inner, key, group, group.length > 1 ? multi : undefined, request).catch((err: unknown) => err);
    for (const [i, span] of group.entries()) {
      for (const w of wants) {
        if (w.offset < span.offset || w.offset + w.length > span.offset + span.length) continue;
        if (!Array.isArray(results)) w.reject(results);
        else {
          const result = results[i] ?? null;
          w.resolve(result && { bytes: result.bytes.subarray(w.offset - span.offset, w.offset - span.offset + w.length), version: result.version });
        }
      }
    }
  }));
}

/**
 * The bytes of each span: one multi-range request when the backend takes them, else (or when that
 * request fails: the host is then asked one range at a time) one `get` per span through the
 * wrapped storage and its retries, so a caller sees what an unbatched read would.
 */
async function spanResults(inner: ObjectStorage, key: string, spans: readonly ByteSpan[], multi: MultiRange | undefined, request: AbortOptions | undefined): Promise<(GetResult | null)[]> {
  if (multi) {
    const got = await multi(key, spans, request).catch(() => undefined);
    if (got === null) return spans.map(() => null);
    if (got) return got.bytes.map((bytes) => ({ bytes, version: got.version }));
  }
  return Promise.all(spans.map((span) => inner.get(key, span, request)));
}

function chunked<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
