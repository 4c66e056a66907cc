// Fault injection for tests: make chosen calls fail with a transient error before reaching the
// backend, fail after it acted (the answer is lost, the effect is not), or run late.
import { sleepAbortably } from '../abort.ts';
import { systemClock } from './clock.ts';
import { transientError } from './transient.ts';
import type { ObjectStorage } from './types.ts';
import { wrapStorage, type StorageCall } from './wrap.ts';
import { seededRandom } from '../../format/seeded-random.ts';

/**
 * An injected fault: fail before the backend acts, fail after it acted (the answer is lost, the
 * effect is not), or delay the call.
 */
export type Fault =
  | { kind: 'fail-before' } // nothing happens; the caller sees a transient error
  | { kind: 'fail-after' } // the backend acts; the caller sees a transient error
  | { kind: 'delay'; ms: number };

/** Decides the fault, if any, of each call; `callNumber` counts calls from 1. */
export type FaultPlan = (call: StorageCall, callNumber: number) => Fault | undefined;

/**
 * Wraps a storage to inject faults for tests: failures are transient `STORAGE_ERROR`s, so they
 * exercise retries and recovery.
 */
export function withFaults(inner: ObjectStorage, plan: FaultPlan): ObjectStorage {
  let calls = 0;
  const injected = (call: StorageCall) => transientError(`injected fault in ${call.operation}`, call.key, undefined);
  return wrapStorage(inner, async (call, run) => {
    calls += 1;
    const fault = plan(call, calls);
    if (fault?.kind === 'fail-before') throw injected(call);
    if (fault?.kind === 'delay') await sleepAbortably(systemClock, fault.ms, call.signal, call.key); // a delay ends when the caller aborts
    const result = await run();
    if (fault?.kind === 'fail-after') throw injected(call);
    return result;
  });
}

/** A plan failing each call before it acts with probability `rate`, from a seeded generator. */
export function randomFaults(rate: number, seed = 1): FaultPlan {
  const next = seededRandom(seed); // a failing test replays with the same faults
  return () => (next() < rate ? { kind: 'fail-before' } : undefined);
}
