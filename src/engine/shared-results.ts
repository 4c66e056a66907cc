// Memory for results the decode pool's workers fill in place: shared where the host has it. V8
// does not count shared memory toward its collection triggers (platform/heap-collector.ts), so
// after `sharedResultSlackBytes` of shared allocations the process collects before allocating
// more: dropped results are freed instead of piling up until the machine runs out of memory.
import { heapCollector } from '../platform/heap-collector.ts';
import { sharedOrPlainBuffer } from '../platform/host.ts';
import { resourceLimits } from '../format/limits.ts';

let sinceCollection = 0;

/** `bytes` of shared memory (ordinary memory where the host has none), collecting first when due. */
export function sharedResultBuffer(bytes: number): ArrayBufferLike {
  sinceCollection += bytes;
  if (sinceCollection > resourceLimits().sharedResultSlackBytes) {
    sinceCollection = bytes;
    heapCollector()?.();
  }
  return sharedOrPlainBuffer(bytes);
}
