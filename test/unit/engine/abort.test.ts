// The ABORTED error every layer throws when a caller's signal fires, and the two waits that end
// with it (src/engine/abort.ts).
import { describe, expect, it } from 'vitest';
import { floeError, isFloeError } from '../../../src/errors.ts';
import { abortable, abortedError, abortedOr, sleepAbortably, throwIfAborted } from '../../../src/engine/abort.ts';
import { systemClock } from '../../../src/engine/storage/clock.ts';
import { FakeClock } from '../../../src/testing/fake-clock.ts';

const aborted = (reason?: unknown) => {
  const controller = new AbortController();
  controller.abort(reason);
  return controller.signal;
};

describe('abortedError', () => {
  it('keeps the reason as cause and its message as details.reason', () => {
    const reason = new Error('user pressed stop');
    const err = abortedError(aborted(reason), 'a/b');
    expect([err.code, err.details, err.cause, err.where]).toEqual(['ABORTED', { timedOut: false, reason: 'user pressed stop' }, reason, 'a/b']);
    expect(err.message).toContain('user pressed stop');
  });

  it('says timedOut for AbortSignal.timeout and for a TIMEOUT reason, not for a plain abort()', async () => {
    const timer = AbortSignal.timeout(1);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(abortedError(timer).details.timedOut).toBe(true);
    expect(abortedError(aborted(floeError('TIMEOUT', 'too slow'))).details).toEqual({ timedOut: true, reason: 'too slow' });
    const plain = abortedError(aborted()).details; // the default reason: an AbortError DOMException
    expect(plain.timedOut).toBe(false);
    expect(abortedError(aborted('bye')).details).toEqual({ timedOut: false, reason: 'bye' });
  });

  it('throwIfAborted throws only once the signal fired; abortedOr replaces errors it caused', () => {
    const controller = new AbortController();
    expect(() => throwIfAborted(controller.signal)).not.toThrow();
    expect(() => throwIfAborted(undefined)).not.toThrow();
    const socket = new Error('socket closed');
    expect(abortedOr(socket, controller.signal)).toBe(socket);
    controller.abort();
    let thrown: unknown;
    try {
      throwIfAborted(controller.signal, 'k');
    } catch (err) {
      thrown = err;
    }
    expect(isFloeError(thrown, 'ABORTED')).toBe(true);
    expect(isFloeError(abortedOr(socket, controller.signal), 'ABORTED')).toBe(true);
  });
});

describe('abortable waits', () => {
  it('abortable settles as the promise does, or rejects when the signal fires first', async () => {
    expect(await abortable(Promise.resolve(1), new AbortController().signal)).toBe(1);
    const controller = new AbortController();
    const never = new Promise<number>(() => {});
    const waiting = abortable(never, controller.signal);
    controller.abort();
    expect(isFloeError(await waiting.catch((e: unknown) => e), 'ABORTED')).toBe(true);
    expect(isFloeError(await abortable(Promise.resolve(2), aborted()).catch((e: unknown) => e), 'ABORTED')).toBe(true);
  });

  it('sleepAbortably ends early with ABORTED, or after its time without a signal', async () => {
    const controller = new AbortController();
    const started = performance.now();
    const sleeping = sleepAbortably(systemClock, 10_000, controller.signal);
    setTimeout(() => controller.abort(), 20);
    expect(isFloeError(await sleeping.catch((e: unknown) => e), 'ABORTED')).toBe(true);
    expect(performance.now() - started).toBeLessThan(2000);
    await expect(sleepAbortably(systemClock, 5, undefined)).resolves.toBeUndefined();
  });

  it('sleepAbortably on a FakeClock: ABORTED when the signal fires before the clock reaches the end', async () => {
    const clock = new FakeClock({ autoAdvance: false });
    const controller = new AbortController();
    const sleeping = sleepAbortably(clock, 60_000, controller.signal, 'k');
    expect(clock.pendingSleeps).toBe(1);
    controller.abort('stop');
    const err = await sleeping.catch((e: unknown) => e);
    expect(isFloeError(err, 'ABORTED') && err.where === 'k' ? err.details : undefined).toEqual({ timedOut: false, reason: 'stop' });
    expect(clock.pendingSleeps).toBe(0);
    await expect(sleepAbortably(clock, 5, aborted())).rejects.toMatchObject({ code: 'ABORTED' });
  });
});
