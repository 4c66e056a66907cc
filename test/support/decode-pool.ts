// Decode pools for tests: one that starts for reads of `startBytes` and more, and a bounded wait
// until one of its workers has loaded (reads decode in the calling thread until then).
import { DecodePool } from '../../src/engine/decode-pool.ts';

export function testPool(startBytes: number, size = 2): DecodePool {
  return new DecodePool(size, { startBytes });
}

/** Starts `pool` and waits (at most `ms`) until a worker is ready; throws if none gets there. */
export async function warmPool(pool: DecodePool, ms = 20_000): Promise<void> {
  pool.start();
  const deadline = performance.now() + ms;
  while (!pool.ready) {
    if (performance.now() > deadline) throw new Error(`no decode worker was ready after ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
