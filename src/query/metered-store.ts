// Counts every request a query makes, by purpose, so explain's expectations and execute's
// report can be compared. A read-only ZarrStore wrapper: one Meter, one view per purpose. Every
// request passes here, so this is also where an aborted query stops fetching: no request starts
// once the query's signal fired, and the signal goes with every request to the source's store,
// which cancels those in flight (ABORTED). Manifests are read by the source itself (a session),
// which reports them to `record`.
import { floeError } from '../errors.ts';
import { requestOf, throwIfAborted, yieldDue, yieldToEventLoop } from '../engine/abort.ts';
import { ReadOnlyZarrStore, type AbortOptions, type ByteRange, type ListDir, type ZarrStore } from '../engine/store.ts';

export const FETCH_PURPOSES = ['metadata', 'manifest', 'coordinates', 'shardIndex', 'data', 'unplanned'] as const;
/** Why a query read something; requests and bytes are counted per purpose. */
export type FetchPurpose = (typeof FETCH_PURPOSES)[number];

/** Requests made and bytes read. */
export interface FetchCount {
  requests: number;
  bytes: number;
}

/** Requests and bytes per {@link FetchPurpose}. */
export type FetchCounts = Record<FetchPurpose, FetchCount>;

export class Meter {
  readonly counts: FetchCounts = {
    metadata: { requests: 0, bytes: 0 },
    manifest: { requests: 0, bytes: 0 },
    coordinates: { requests: 0, bytes: 0 },
    shardIndex: { requests: 0, bytes: 0 },
    data: { requests: 0, bytes: 0 },
    unplanned: { requests: 0, bytes: 0 },
  };

  /** The query's one request options object (its signal), for every request it makes. */
  readonly request: AbortOptions | undefined;

  constructor(readonly inner: ZarrStore, readonly signal?: AbortSignal) {
    this.request = requestOf({ signal });
  }

  record(purpose: FetchPurpose, bytes: Uint8Array | number | undefined): void {
    this.counts[purpose].requests++;
    this.counts[purpose].bytes += typeof bytes === 'number' ? bytes : (bytes?.byteLength ?? 0);
  }

  /** Throws ABORTED once the query's signal fired: no new request starts after that. */
  checkAborted(): void {
    throwIfAborted(this.signal);
  }

  store(purpose: FetchPurpose): ZarrStore {
    return new MeteredStore(this, purpose);
  }

  snapshot(): FetchCounts {
    return structuredClone(this.counts);
  }
}

export function totalCount(counts: FetchCounts): FetchCount {
  return FETCH_PURPOSES.reduce((t, p) => ({ requests: t.requests + counts[p].requests, bytes: t.bytes + counts[p].bytes }), { requests: 0, bytes: 0 });
}

class MeteredStore extends ReadOnlyZarrStore {

  constructor(private readonly meter: Meter, private readonly purpose: FetchPurpose) {
    super();
  }

  async get(key: string): Promise<Uint8Array | undefined> {
    if (yieldDue(this.meter.signal)) await yieldToEventLoop(); // so the abort can fire at all (abort.ts)
    this.meter.checkAborted();
    const bytes = await this.meter.inner.get(key, this.meter.request);
    this.meter.record(this.purpose, bytes);
    return bytes;
  }

  async getRange(key: string, range: ByteRange): Promise<Uint8Array | undefined> {
    if (yieldDue(this.meter.signal)) await yieldToEventLoop();
    this.meter.checkAborted();
    const bytes = await this.meter.inner.getRange(key, range, this.meter.request);
    this.meter.record(this.purpose, bytes);
    return bytes;
  }

  list(): AsyncIterable<string> {
    return this.meter.inner.list(this.meter.request);
  }

  listPrefix(prefix: string): AsyncIterable<string> {
    return this.meter.inner.listPrefix(prefix, this.meter.request);
  }

  listDir(prefix: string): Promise<ListDir> {
    return this.meter.inner.listDir(prefix, this.meter.request);
  }

  protected override refuse(key: string): Promise<never> {
    return readOnly(key);
  }
}

/** Queries only read; a write through one is a bug in the caller. */
export function readOnly(key: string): Promise<never> {
  return Promise.reject(floeError('READ_ONLY', `a query store is read-only; cannot modify ${JSON.stringify(key)}`, { where: key }));
}
