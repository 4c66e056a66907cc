// The query's coalescing of byte ranges is the storage layer's (src/engine/storage/coalesce.ts),
// shared with the range batching of HTTP reads (range-batching.ts).
export { coalesceRanges, DEFAULT_GAP_BYTES, DEFAULT_MAX_OVERREAD, type ByteRangeWant, type CoalescedRange, type CoalesceOptions } from '../../engine/storage/coalesce.ts';
