// In-memory backend for tests and ephemeral repositories. Every operation is applied synchronously
// inside one call, so conditional writes are trivially atomic; bytes are copied in and out so a
// caller mutating its buffer never changes a stored object. Being synchronous, a call can only be
// aborted before it starts: each checks its signal first.
import { floeError } from '../../errors.ts';
import { throwIfAborted } from '../abort.ts';
import { copyBytes } from '../../format/bytes.ts';
import { systemClock, type Clock } from './clock.ts';
import { validateDirPrefix, validateKey, validatePrefix } from './keys.ts';
import { checkPrecondition, validatePutOptions } from './preconditions.ts';
import { checkObjectSize } from './object-bound.ts';
import { resolveRange, validateRange } from './ranges.ts';
import type {
  AbortOptions,
  ByteRange,
  CopyOptions,
  ObjectGetOptions,
  GetResult,
  ListDirResult,
  ListOptions,
  ObjectInfo,
  ObjectStorage,
  PutOptions,
  VersionToken,
} from './types.ts';

interface StoredObject {
  bytes: Uint8Array;
  version: VersionToken;
  lastModified: Date;
}

/** Options of {@link MemoryStorage}. */
export interface MemoryStorageOptions {
  /** Time recorded as each write's `lastModified`. Default: the system clock. */
  clock?: Clock;
}

/**
 * In-memory {@link ObjectStorage} for tests and ephemeral repositories. Bytes are copied in and out,
 * so a caller mutating its buffer never changes a stored object; nothing survives the process.
 */
export class MemoryStorage implements ObjectStorage {
  readonly kind = 'memory';
  private readonly objects = new Map<string, StoredObject>();
  // A generation counter: every write gets a fresh token, so an overwrite with identical bytes
  // still invalidates older tokens (no ABA).
  private generation = 0;
  private closed = false;
  private readonly clock: Clock;

  constructor(options: MemoryStorageOptions = {}) {
    this.clock = options.clock ?? systemClock;
  }

  async get(key: string, range?: ByteRange, options?: ObjectGetOptions): Promise<GetResult | null> {
    this.checkOpen(options, key);
    validateKey(key);
    if (range) validateRange(range, key);
    const object = this.objects.get(key);
    if (!object) return null;
    checkObjectSize(key, object.bytes.length, range, options);
    const { start, end } = resolveRange(range, object.bytes.length);
    return { bytes: object.bytes.slice(start, end), version: object.version }; // a plain Uint8Array: slice copies
  }

  async head(key: string, options?: AbortOptions): Promise<ObjectInfo | null> {
    this.checkOpen(options, key);
    validateKey(key);
    const object = this.objects.get(key);
    return object ? infoOf(key, object) : null;
  }

  async put(key: string, bytes: Uint8Array, options?: PutOptions): Promise<{ version: VersionToken }> {
    this.checkOpen(options, key);
    validateKey(key);
    validatePutOptions(options, key);
    checkPrecondition(key, this.objects.get(key)?.version, options);
    return { version: this.store(key, copyBytes(bytes)) }; // Buffer#slice would not copy
  }

  async copy(from: string, to: string, options?: CopyOptions): Promise<{ version: VersionToken }> {
    this.checkOpen(options, to);
    validateKey(from);
    validateKey(to);
    const source = this.objects.get(from);
    if (!source) throw floeError('NOT_FOUND', `cannot copy ${JSON.stringify(from)}: no such object`, { where: from });
    if (options?.ifMatch !== undefined) checkPrecondition(from, source.version, { ifMatch: options.ifMatch });
    // Stored bytes are never mutated, so the copy may share them.
    return { version: this.store(to, source.bytes) };
  }

  async *list(prefix: string, options?: ListOptions): AsyncIterable<ObjectInfo> {
    this.checkOpen(options, prefix);
    validatePrefix(prefix);
    const after = options?.startAfter;
    // Snapshot the matching keys first so writes during iteration cannot break it.
    const keys = [...this.objects.keys()]
      .filter((k) => k.startsWith(prefix) && (after === undefined || compareKeys(k, after) > 0))
      .sort(compareKeys);
    for (const key of keys) {
      throwIfAborted(options?.signal, prefix); // the consumer may await between items
      const object = this.objects.get(key);
      if (object) yield infoOf(key, object);
    }
  }

  async listDir(prefix: string, options?: AbortOptions): Promise<ListDirResult> {
    this.checkOpen(options, prefix);
    validateDirPrefix(prefix);
    const objects: ObjectInfo[] = [];
    const prefixes = new Set<string>();
    for (const [key, object] of this.objects) {
      if (!key.startsWith(prefix)) continue;
      const slash = key.indexOf('/', prefix.length);
      if (slash === -1) objects.push(infoOf(key, object));
      else prefixes.add(key.slice(0, slash + 1));
    }
    objects.sort((a, b) => compareKeys(a.key, b.key));
    return { objects, prefixes: [...prefixes].sort(compareKeys) };
  }

  async delete(keys: readonly string[], options?: AbortOptions): Promise<void> {
    this.checkOpen(options, keys[0]);
    keys.forEach((key) => validateKey(key));
    for (const key of keys) this.objects.delete(key);
  }

  async close(): Promise<void> {
    this.closed = true;
  }

  /** {@link close}, for `await using`. */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  private store(key: string, bytes: Uint8Array): VersionToken {
    this.generation += 1;
    const version = `g${this.generation}`;
    this.objects.set(key, { bytes, version, lastModified: new Date(this.clock.nowMs()) });
    return version;
  }

  private checkOpen(options: AbortOptions | undefined, where: string | undefined): void {
    if (this.closed) throw floeError('STORAGE_ERROR', 'memory storage is closed');
    throwIfAborted(options?.signal, where);
  }
}

function infoOf(key: string, object: StoredObject): ObjectInfo {
  return { key, size: object.bytes.length, lastModified: object.lastModified, version: object.version };
}

/**
 * Lexicographic order of the keys' UTF-8 bytes, i.e. code-point order — the order S3 lists in.
 * JS string order (UTF-16 code units) differs only between surrogates (code points above U+FFFF)
 * and U+E000–U+FFFF; remapping those two ranges fixes it without encoding the strings.
 */
export function compareKeys(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const ca = a.charCodeAt(i);
    const cb = b.charCodeAt(i);
    if (ca !== cb) return codePointRank(ca) - codePointRank(cb);
  }
  return a.length - b.length;
}

function codePointRank(unit: number): number {
  if (unit >= 0xd800 && unit <= 0xdfff) return unit + 0x2000; // surrogates sort after U+FFFF
  if (unit >= 0xe000) return unit - 0x800;
  return unit;
}
