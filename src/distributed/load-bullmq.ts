// Loads BullMQ (and checks its Redis client, ioredis, which BullMQ loads itself): optional peer
// dependencies, loaded on first use only. Kept apart from bullmq.ts, which the public
// declarations re-export, so that floe/distributed's .d.ts never name the bullmq package.
import type { Queue, QueueEvents } from 'bullmq';
import { importOptional } from '../optional-dependency.ts';

export type BullMQ = typeof import('bullmq');
export type BullQueue = Queue;
export type BullQueueEvents = QueueEvents;

/** Loads bullmq for `purpose` (MISSING_DEPENDENCY naming bullmq or ioredis when absent). */
export async function loadBullmq(purpose: string): Promise<BullMQ> {
  await importOptional('ioredis', purpose, () => import('ioredis'));
  return importOptional('bullmq', purpose, () => import('bullmq'));
}
