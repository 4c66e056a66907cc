// FakeClock (floe/testing) and the system clock's sleep: what time-dependent tests rely on.
import { describe, expect, it } from 'vitest';
import { isFloeError } from '../../../src/errors.ts';
import { systemClock } from '../../../src/engine/storage/clock.ts';
import { FakeClock } from '../../../src/testing/fake-clock.ts';

const START = Date.UTC(2030, 0, 1);

/** Whether `promise` has settled after other pending callbacks ran. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  void promise.then(() => (done = true), () => (done = true));
  for (let i = 0; i < 5; i++) await Promise.resolve();
  return done;
}

describe('FakeClock', () => {
  it('stands still until moved, and by default moves through a sleep at once', async () => {
    const clock = new FakeClock();
    expect(clock.nowMs()).toBe(START);
    expect(clock.nowMs()).toBe(START);
    await clock.sleep(250);
    await clock.sleep(-5); // as setTimeout: a negative wait is none
    expect(clock.nowMs()).toBe(START + 250);
    expect(clock.sleeps).toEqual([250, 0]);
    clock.advance(1000);
    expect(clock.nowMs()).toBe(START + 1250);
  });

  it('without autoAdvance, wakes sleeps only when advanced past their end, earliest first', async () => {
    const clock = new FakeClock({ startMs: 0, autoAdvance: false });
    const woke: string[] = [];
    const long = clock.sleep(100).then(() => woke.push('long'));
    const short = clock.sleep(30).then(() => woke.push('short'));
    const tie = clock.sleep(30).then(() => woke.push('tie'));
    expect(clock.pendingSleeps).toBe(3);
    clock.advance(29);
    expect(await settled(short)).toBe(false);
    clock.advance(1);
    await Promise.all([short, tie]);
    expect(woke).toEqual(['short', 'tie']);
    expect(await settled(long)).toBe(false);
    clock.advance(70);
    await long;
    expect(woke).toEqual(['short', 'tie', 'long']);
    expect(clock.pendingSleeps).toBe(0);
  });

  it('rejects a sleep with the abort reason, whether aborted before or during it', async () => {
    const clock = new FakeClock({ autoAdvance: false });
    const reason = new Error('stop');
    await expect(clock.sleep(10, AbortSignal.abort(reason))).rejects.toBe(reason);
    const controller = new AbortController();
    const sleeping = clock.sleep(10, controller.signal);
    controller.abort(reason);
    await expect(sleeping).rejects.toBe(reason);
    expect(clock.pendingSleeps).toBe(0);
  });

  it('can be stepped back, as a wall clock can, but never advanced by a negative span', () => {
    const clock = new FakeClock({ startMs: 5000 });
    clock.setTime(1000);
    expect(clock.nowMs()).toBe(1000);
    for (const bad of [-1, Number.NaN, Number.POSITIVE_INFINITY]) {
      let caught: unknown;
      try {
        clock.advance(bad);
      } catch (err) {
        caught = err;
      }
      expect(isFloeError(caught, 'INVALID_ARGUMENT'), String(bad)).toBe(true);
    }
    expect(clock.nowMs()).toBe(1000);
  });
});

describe('systemClock', () => {
  it('reads Date.now and sleeps on real timers, cancellable through a signal', async () => {
    const before = Date.now();
    const now = systemClock.nowMs();
    expect(now).toBeGreaterThanOrEqual(before);
    expect(now).toBeLessThanOrEqual(Date.now());
    await systemClock.sleep(0);
    const reason = new Error('cancelled');
    await expect(systemClock.sleep(60_000, AbortSignal.abort(reason))).rejects.toBe(reason);
    const controller = new AbortController();
    const sleeping = systemClock.sleep(60_000, controller.signal);
    controller.abort(reason);
    await expect(sleeping).rejects.toBe(reason); // at once, not after 60 s
  });
});
