// A distributed write's plan, stored in the repository's storage before any job is enqueued: the
// write id, branch, message, the base snapshot every fork starts on (as an empty fork), and the
// tasks. A restarted coordinator reads it back and carries on with the same base and tasks, so
// the forks its workers already stored still merge. Created with a conditional put: two
// coordinators starting one write at once end up with one plan.
import { floeError, isFloeError } from '../errors.ts';
import type { AbortOptions, ObjectStorage } from '../engine/storage/types.ts';
import { isJsonObject, parseJson, stringifyJson, type JsonValue } from '../format/json.ts';
import type { ForkJSON } from '../txn/fork.ts';
import { planKey } from './names.ts';

export const PLAN_FORMAT = 'floe-distributed-plan';

export interface WritePlan {
  format: typeof PLAN_FORMAT;
  version: 1;
  writeId: string;
  branch: string;
  message: string;
  /** The snapshot every task's fork starts on (the branch tip when the write was planned). */
  baseSnapshotId: string;
  /** An empty fork of a session on the base: what each worker revives and writes into. */
  fork: ForkJSON;
  tasks: JsonValue[];
}

const encoder = new TextEncoder();

/** The stored plan of `writeId`, or undefined when there is none. */
export async function readPlan(storage: ObjectStorage, writeId: string, request?: AbortOptions): Promise<WritePlan | undefined> {
  const got = await storage.get(planKey(writeId), undefined, request);
  return got ? parsePlan(got.bytes, writeId) : undefined;
}

/**
 * Stores `proposal` unless a plan for its write exists; returns the stored plan (the existing one
 * after a lost race) and whether this call created it.
 */
export async function createPlan(storage: ObjectStorage, proposal: WritePlan, request?: AbortOptions): Promise<{ plan: WritePlan; created: boolean }> {
  const bytes = encoder.encode(stringifyJson(proposal as unknown as JsonValue, 0));
  try {
    await storage.put(planKey(proposal.writeId), bytes, { ...request, ifNoneMatch: '*', contentType: 'application/json' });
    return { plan: proposal, created: true };
  } catch (err) {
    if (!isFloeError(err, 'PRECONDITION_FAILED')) throw err;
    const plan = await readPlan(storage, proposal.writeId, request);
    if (!plan) throw err;
    return { plan, created: false };
  }
}

function parsePlan(bytes: Uint8Array, writeId: string): WritePlan {
  const where = planKey(writeId);
  const value = parseJson(bytes, where, { exactIntegers: false });
  const plan = isJsonObject(value) ? value : {};
  if (plan.format !== PLAN_FORMAT || plan.version !== 1 || plan.writeId !== writeId || typeof plan.branch !== 'string' || typeof plan.message !== 'string'
    || typeof plan.baseSnapshotId !== 'string' || !isJsonObject(plan.fork) || !Array.isArray(plan.tasks)) {
    throw floeError('CORRUPT_OBJECT', `${where} is not the plan of distributed write ${writeId}; delete it to start the write afresh`, { where });
  }
  return plan as unknown as WritePlan;
}

/** The tasks as the plan stores them, for comparing a resumed write's tasks with its plan's. */
export function tasksText(tasks: readonly unknown[]): string {
  return stringifyJson(tasks as JsonValue, 0);
}
