// Bounded parallelism for chunk I/O: never an unbounded Promise.all over user-sized lists.

/** Runs `fn` over `items` with at most `limit` calls in flight; rejects on the first failure. */
export async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  // The workers share one iterator: each takes the next item synchronously, so none is run twice.
  const queue = items.entries();
  let failed = false;
  const worker = async (): Promise<void> => {
    while (!failed) {
      const next = queue.next();
      if (next.done === true) return;
      const [i, item] = next.value;
      try {
        results[i] = await fn(item, i);
      } catch (err) {
        failed = true;
        throw err;
      }
    }
  };
  const workers = Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker);
  await Promise.all(workers);
  return results;
}
