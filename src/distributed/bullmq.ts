// BullMQ and its Redis client (ioredis), optional peer dependencies loaded on first use, and the
// settings floe/distributed relies on, stated in one place (docs/distributed.md, "BullMQ settings").
import { floeError } from '../errors.ts';

/** Where Redis is: a `redis://` / `rediss://` URL, or ioredis connection options. */
export type RedisConnection = string | RedisConnectionOptions;

/** The ioredis connection options floe/distributed passes on (`maxRetriesPerRequest` is always null). */
export interface RedisConnectionOptions {
  host?: string;
  port?: number;
  username?: string;
  password?: string;
  db?: number;
  /** TLS options (Node's `tls.connect` options); `{}` for TLS with defaults. */
  tls?: Record<string, unknown>;
}

/** A BullMQ queue: its name and where its Redis is. One queue serves one repository's writes. */
export interface QueueRef {
  /** The queue's name (no `:`). */
  name: string;
  redis: RedisConnection;
  /** BullMQ's key prefix in Redis (default `bull`). */
  prefix?: string;
}

/**
 * How long a worker holds a job before the job engine gives it to another worker, and how a
 * killed or stalled worker's job comes back. Locks are renewed every `lockDurationMs / 2` while
 * the worker's event loop runs, so `lockDurationMs` must exceed the longest the event loop is ever
 * blocked (a synchronous codec call on a big chunk), not the task's length.
 */
export interface WorkerSettings {
  /** The job lock's duration. Default 30 000 ms. */
  lockDurationMs?: number;
  /** How often each worker looks for jobs whose lock expired (a killed worker's). Default 15 000 ms. */
  stalledIntervalMs?: number;
  /**
   * How many times a job may lose its lock (a worker killed or stalled) and be handed out again
   * before BullMQ fails it. Default 50: a lost worker is a retry, never the end of the write.
   */
  maxStalledCount?: number;
}

/** How the coordinator enqueues a task's job. */
export interface JobSettings {
  /** Attempts when the handler throws (BullMQ `attempts`), the first included. Default 5. */
  attempts?: number;
  /** Exponential backoff base between those attempts. Default 1 000 ms. */
  backoffMs?: number;
}

/** The worker settings used where `runWorker`'s `settings` leave one out (docs/distributed.md). */
export const DEFAULT_WORKER_SETTINGS: Required<WorkerSettings> = { lockDurationMs: 30_000, stalledIntervalMs: 15_000, maxStalledCount: 50 };
/** The job settings used where `distributedWrite`'s `jobs` leave one out. */
export const DEFAULT_JOB_SETTINGS: Required<JobSettings> = { attempts: 5, backoffMs: 1_000 };

/**
 * BullMQ connection options for `redis`: every connection retries its commands across a Redis
 * restart rather than failing them (`maxRetriesPerRequest: null`, which BullMQ's workers need) and
 * reconnects with BullMQ's backoff.
 */
export function connectionOptions(redis: RedisConnection): Record<string, unknown> {
  const base = typeof redis === 'string' ? { url: redis } : { ...redis };
  return { ...base, maxRetriesPerRequest: null };
}

/** Checks a queue reference from a caller. */
export function checkQueue(queue: QueueRef): QueueRef {
  if (typeof queue !== 'object' || queue === null || typeof queue.name !== 'string' || queue.name === '' || queue.name.includes(':')) {
    throw floeError('INVALID_ARGUMENT', 'queue must be { name, redis } with a non-empty name without \':\'');
  }
  if (typeof queue.redis !== 'string' && (typeof queue.redis !== 'object' || queue.redis === null)) {
    throw floeError('INVALID_ARGUMENT', 'queue.redis must be a redis:// URL or ioredis connection options');
  }
  return queue;
}

/** A positive whole number of milliseconds or counts from a caller's settings. */
export function positive(value: number | undefined, fallback: number, name: string, min = 1): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < min) throw floeError('INVALID_ARGUMENT', `${name} must be an integer >= ${min}, got ${value}`);
  return value;
}
