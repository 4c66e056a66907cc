// Public pieces of the storage layer: the contract, key rules and the backends.
export type {
  ByteRange,
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
