// The names a distributed write goes by, built in one place for the coordinator, the workers and
// the tests: its id, the BullMQ job id of each task, its commit key, and the storage keys of its
// plan and of the forks its workers store. Everything a write stores lies under one prefix that
// Icechunk's layout does not use, so the reference and Floe's GC leave it alone.
import { randomUUID } from 'node:crypto';
import { floeError } from '../errors.ts';

/** Where distributed writes keep their plans and fork descriptions in a repository's storage. */
export const DISTRIBUTED_PREFIX = 'floe-distributed/';

const WRITE_ID = /^[A-Za-z0-9_-]{1,100}$/;

/** A new write id: a random UUID (BullMQ forbids `:` in custom job ids; a UUID has none). */
export function newWriteId(): string {
  return randomUUID();
}

/** Whether `value` is a valid write id. */
export const isWriteId = (value: unknown): value is string => typeof value === 'string' && WRITE_ID.test(value);

/** Checks a caller's write id: 1 to 100 of `A-Z a-z 0-9 _ -` (it becomes job ids and storage keys). */
export function checkWriteId(writeId: unknown): string {
  if (!isWriteId(writeId)) {
    throw floeError('INVALID_ARGUMENT', `a write id is 1 to 100 letters, digits, '_' or '-' (it names jobs and storage keys), got ${JSON.stringify(writeId)}`);
  }
  return writeId;
}

/** The BullMQ job id of a write's task: `<writeId>-<task>` (unique per write, no `:`). */
export const jobIdOf = (writeId: string, task: number): string => `${writeId}-${task}`;

/** The commit key a write's commit records (docs/transactions.md), so it lands at most once. */
export const commitKeyOf = (writeId: string): string => `floe-distributed-${writeId}`;

/** Everything of one write under the distributed prefix. */
export const writePrefix = (writeId: string): string => `${DISTRIBUTED_PREFIX}${writeId}/`;

/** The write's plan: tasks, base snapshot, branch, message. */
export const planKey = (writeId: string): string => `${writePrefix(writeId)}plan.json`;

/** Where a worker stores the fork one attempt of a task wrote (`attempt`: a random id per attempt). */
export const forkKey = (writeId: string, task: number, attempt: string): string => `${writePrefix(writeId)}forks/${task}-${attempt}.json`;

/** Whether `key` is a fork key of this write's task (a job result naming anything else is refused). */
export function isForkKeyOf(key: unknown, writeId: string, task: number): key is string {
  if (typeof key !== 'string') return false;
  const prefix = `${writePrefix(writeId)}forks/${task}-`;
  return key.startsWith(prefix) && /^[0-9a-f-]{36}\.json$/.test(key.slice(prefix.length));
}
