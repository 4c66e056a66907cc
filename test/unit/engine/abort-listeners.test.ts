// Issue 28: a read waiting on many loads at once (a hundred manifests behind one `floe cat`) must
// not hang a listener per load on the caller's signal: Node warns past 10 (MaxListenersExceeded),
// and each one is a closure kept alive until the signal is collected. abortable() shares one
// listener per signal and removes it when the last wait settles.
import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { isFloeError } from '../../../src/errors.ts';
import { abortable } from '../../../src/engine/abort.ts';
import type { ObjectStorage } from '../../../src/engine/storage/types.ts';
import { newManifestId } from '../../../src/format/icechunk/ids.ts';
import { RepoObjects } from '../../../src/txn/objects.ts';

const PENDING = 100;
const listeners = (signal: AbortSignal) => getEventListeners(signal, 'abort').length;

/** A promise and the function that settles it. */
function deferred<T>(): { promise: Promise<T>; resolve: (value: T) => void; reject: (err: unknown) => void } {
  let resolve!: (value: T) => void;
  let reject!: (err: unknown) => void;
  const promise = new Promise<T>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
}

describe('abort listeners on a shared signal', () => {
  it(`stay at one under ${PENDING} pending abortable waits, and none once they settle`, async () => {
    const controller = new AbortController();
    const loads = Array.from({ length: PENDING }, () => deferred<number>());
    const waits = loads.map((load) => abortable(load.promise, controller.signal, 'x'));
    expect(listeners(controller.signal)).toBe(1);
    loads.slice(0, PENDING / 2).forEach((load, i) => load.resolve(i));
    await Promise.all(waits.slice(0, PENDING / 2));
    expect(listeners(controller.signal)).toBe(1);
    loads.slice(PENDING / 2).forEach((load) => load.reject(new Error('gone')));
    await Promise.allSettled(waits);
    expect(listeners(controller.signal)).toBe(0);
    // A later wait on the same signal subscribes afresh.
    const again = deferred<string>();
    const wait = abortable(again.promise, controller.signal);
    expect(listeners(controller.signal)).toBe(1);
    again.resolve('ok');
    await expect(wait).resolves.toBe('ok');
    expect(listeners(controller.signal)).toBe(0);
  });

  it('one abort rejects every pending wait with ABORTED, and leaves no listener', async () => {
    const controller = new AbortController();
    const waits = Array.from({ length: PENDING }, (_, i) => abortable(deferred<void>().promise, controller.signal, `w${i}`));
    controller.abort(new Error('stop'));
    const results = await Promise.allSettled(waits);
    expect(results.every((r) => r.status === 'rejected' && isFloeError(r.reason, 'ABORTED'))).toBe(true);
    expect(results.map((r) => (r.status === 'rejected' ? (r.reason as { where?: string }).where : ''))).toEqual(waits.map((_, i) => `w${i}`));
    expect(listeners(controller.signal)).toBe(0);
  });

  it(`${PENDING} manifest loads pending on one signal hang one listener on it`, async () => {
    const gate = deferred<void>();
    let gets = 0;
    const storage = {
      get: async () => {
        gets++;
        await gate.promise;
        return null; // missing: each load fails NOT_FOUND once released
      },
    } as unknown as ObjectStorage;
    const objects = new RepoObjects(storage);
    const controller = new AbortController();
    const loads = Array.from({ length: PENDING }, () => objects.loadManifest(newManifestId(), { signal: controller.signal }));
    await new Promise((resolve) => setImmediate(resolve));
    expect(gets).toBe(PENDING);
    expect(listeners(controller.signal)).toBeLessThanOrEqual(1);
    gate.resolve();
    const results = await Promise.allSettled(loads);
    expect(results.every((r) => r.status === 'rejected' && isFloeError(r.reason, 'NOT_FOUND'))).toBe(true);
    expect(listeners(controller.signal)).toBe(0);
  });
});
