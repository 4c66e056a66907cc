// A create-only write that may be repeated: the write of an object under a fresh random id
// (chunk, manifest, snapshot, transaction log, repo-info backup). PRECONDITION_FAILED on a create
// says only that *something* is stored under the key. After a lost answer that something is
// usually this very write, landed by an earlier attempt; but it may also be other bytes (a
// damaged store, a reused id). Taking "the key exists" for "our bytes are stored" once turned a
// chunk that was never written into an acknowledged commit, so the stored bytes are compared
// with ours before the write counts as done.
import { floeError, isFloeError } from '../../errors.ts';
import { bytesEqual } from '../../format/bytes.ts';
import type { AbortOptions, ObjectStorage } from './types.ts';

/** How a {@link createOnce} ended: this call stored the bytes, or found them already stored. */
export type CreateOutcome = 'created' | 'already-stored';

/** Rounds of "key reported present, then found absent" before giving up (a GC racing the write). */
const VANISHED_ROUNDS = 3;

/**
 * Writes `bytes` under `key` unless the key exists (`ifNoneMatch: '*'`). A key that exists counts
 * as this write only when it holds exactly `bytes`; other bytes throw ALREADY_EXISTS, and the
 * write is never reported done unless the object is there with our bytes.
 */
export async function createOnce(storage: ObjectStorage, key: string, bytes: Uint8Array, options?: AbortOptions): Promise<CreateOutcome> {
  const signal = options?.signal;
  for (let round = 1; ; round++) {
    try {
      await storage.put(key, bytes, { ifNoneMatch: '*', signal });
      return 'created';
    } catch (err) {
      if (!isFloeError(err, 'PRECONDITION_FAILED')) throw err;
      const stored = await storage.get(key, undefined, { signal });
      if (stored && bytesEqual(stored.bytes, bytes)) return 'already-stored';
      if (stored) throw otherBytes(key, stored.bytes.length, bytes.length, err);
      // Present a moment ago, absent now: deleted in between. Write again, a few times at most.
      if (round >= VANISHED_ROUNDS) {
        throw floeError('STORAGE_ERROR', `create of ${JSON.stringify(key)} kept finding the key present and then absent (${round} rounds); is something deleting objects of this store?`, { where: key, cause: err });
      }
    }
  }
}

function otherBytes(key: string, storedLength: number, ourLength: number, cause: unknown): Error {
  const sizes = storedLength === ourLength ? `${ourLength} bytes, different content` : `${storedLength} bytes, ours are ${ourLength}`;
  return floeError(
    'ALREADY_EXISTS',
    `${JSON.stringify(key)} already holds another object (${sizes}); its id was meant to be fresh, so the store is damaged or shared with a writer reusing ids: nothing was overwritten, check the store with verify`,
    { where: key, cause },
  );
}
