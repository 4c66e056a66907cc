// Public pieces of the storage layer: the contract, key rules and the backends.
export type {
  AbortOptions,
  ByteRange,
  CopyOptions,
  ObjectGetOptions,
  GetResult,
  ListDirResult,
  ObjectInfo,
  ObjectStorage,
  PutOptions,
  VersionToken,
} from './types.ts';
export { MAX_KEY_LENGTH, isValidKey, validateDirPrefix, validateKey, validatePrefix } from './keys.ts';
export { resolveRange, validateRange } from './ranges.ts';
export { checkPrecondition, preconditionFailed } from './preconditions.ts';
export { MemoryStorage, compareKeys, type MemoryStorageOptions } from './memory.ts';
export { FsStorage, type Durability, type FsStorageOptions } from './fs.ts';
export { SqliteStorage, type SqliteStorageOptions } from './sqlite.ts';
export { S3Storage, type S3StorageOptions } from './s3.ts';
export { HttpStorage, type HttpStorageOptions } from './http.ts';
export { createLimiter, mapLimit, type Limiter } from './limiter.ts';
export { systemClock, type Clock } from './clock.ts';
export { wrapStorage, type Around, type StorageCall, type StorageOperation } from './wrap.ts';
export { withRetries, type RetryOptions } from './retries.ts';
export { withTimeouts, type TimeoutOptions } from './timeouts.ts';
export { withConcurrencyLimit } from './concurrency.ts';
export { withFaults, randomFaults, type Fault, type FaultPlan } from './faults.ts';
export { isTransientError } from './transient.ts';
