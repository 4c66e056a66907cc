// The store view the engine reads through while a query executes: it answers every request the
// plan predicted from bytes already fetched (whole objects, shard indexes, coalesced spans), so
// the engine's own chunk reader and decoders run unchanged. A request the plan did not predict
// falls through to the real store and is counted as `unplanned`: the tests require none.
import { ReadOnlyZarrStore, type ByteRange, type ListDir, type ZarrStore } from '../../engine/store.ts';
import type { Prefetched } from '../plan/fetch-pass.ts';
import { readOnly } from '../metered-store.ts';

export class PlannedStore extends ReadOnlyZarrStore {

  constructor(private readonly bytes: Prefetched, private readonly fallback: ZarrStore) {
    super();
  }

  async get(key: string): Promise<Uint8Array | undefined> {
    const whole = this.bytes.whole.get(key);
    if (whole !== undefined) return whole ?? undefined;
    return this.fallback.get(key);
  }

  async getRange(key: string, range: ByteRange): Promise<Uint8Array | undefined> {
    const whole = this.bytes.whole.get(key);
    if (whole !== undefined) return whole === null ? undefined : sliceRange(whole, range);
    if ('suffixLength' in range || range.offset === 0) {
      const fromSpan = 'suffixLength' in range ? undefined : this.fromSpans(key, range.offset, range.length);
      if (fromSpan) return fromSpan;
      const index = this.bytes.indexes.get(key);
      const length = 'suffixLength' in range ? range.suffixLength : range.length;
      if (index === null) return undefined;
      if (index && index.length === length) return index;
    } else {
      const fromSpan = this.fromSpans(key, range.offset, range.length);
      if (fromSpan) return fromSpan;
    }
    return this.fallback.getRange(key, range);
  }

  private fromSpans(key: string, offset: number, length: number | undefined): Uint8Array | undefined {
    if (length === undefined) return undefined;
    for (const s of this.bytes.spans.get(key) ?? []) {
      if (s.offset <= offset && offset + length <= s.offset + s.bytes.length) return s.bytes.subarray(offset - s.offset, offset - s.offset + length);
    }
    return undefined;
  }

  list(): AsyncIterable<string> {
    return this.fallback.list();
  }
  listPrefix(prefix: string): AsyncIterable<string> {
    return this.fallback.listPrefix(prefix);
  }
  listDir(prefix: string): Promise<ListDir> {
    return this.fallback.listDir(prefix);
  }

  protected override refuse(key: string): Promise<never> {
    return readOnly(key);
  }
}

function sliceRange(bytes: Uint8Array, range: ByteRange): Uint8Array | undefined {
  if ('suffixLength' in range) return bytes.subarray(Math.max(0, bytes.length - range.suffixLength));
  if (range.offset > bytes.length) return undefined;
  return bytes.subarray(range.offset, range.length === undefined ? bytes.length : range.offset + range.length);
}
