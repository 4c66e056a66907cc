/**
 * Distributed writes: many worker processes, on many machines, write one commit through BullMQ
 * on Redis (docs/distributed.md). `bullmq` and `ioredis` are optional peer dependencies.
 * @module floe/distributed
 */
// floe/distributed: the coordinator (distributedWrite), the worker (runWorker), their settings.
export { distributedWrite, type DistributedWriteOptions, type DistributedWriteResult } from './coordinator.ts';
export { runWorker, type DistributedWorker, type RunWorkerOptions, type TaskContext, type TaskHandler, type WorkerEvent } from './worker.ts';
export { DEFAULT_JOB_SETTINGS, DEFAULT_WORKER_SETTINGS, type JobSettings, type QueueRef, type RedisConnection, type RedisConnectionOptions, type WorkerSettings } from './bullmq.ts';
export type { TaskTiming, WriteProgress } from './progress.ts';
export { DISTRIBUTED_PREFIX } from './names.ts';
