// A Zarr key of a snapshot as an HTTP resource: its size (for Range and Content-Length) and an
// ETag that names its content, found without reading the bytes. Chunk ETags come from the chunk
// reference (chunk object id, offset, length), so a chunk unchanged across commits keeps its ETag
// on every branch and tag; metadata ETags hash the zarr.json bytes.
import { createHash } from 'node:crypto';
import { isFloeError } from '../../errors.ts';
import { idToString } from '../../format/icechunk/ids.ts';
import type { ChunkRef } from '../../format/icechunk/manifest.ts';
import type { Session } from '../../txn/index.ts';
import { chunkRefAt } from '../../txn/node-view.ts';
import { classifyKey } from '../../txn/store-keys.ts';

export interface StoredObject {
  readonly size: number;
  readonly etag: string;
}

const hash = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('base64url').slice(0, 27);

function chunkTag(ref: ChunkRef): string {
  switch (ref.kind) {
    case 'inline':
      return `i-${hash(ref.data)}`;
    case 'native':
      return `c-${idToString(ref.chunkId)}-${ref.offset}-${ref.length}`;
    case 'virtual':
      return `v-${hash(new TextEncoder().encode(`${ref.location}\n${ref.offset}\n${ref.length}\n${JSON.stringify(ref.checksum)}`))}`;
  }
}

/** Undefined when the snapshot has nothing at `key` (including keys that are not canonical). */
export async function statKey(session: Session, key: string): Promise<StoredObject | undefined> {
  let parsed;
  try {
    parsed = classifyKey(session.view(), key);
  } catch (err) {
    if (isFloeError(err, 'INVALID_KEY')) return undefined;
    throw err;
  }
  if (parsed.kind === 'metadata') {
    const node = session.view().nodeAt(parsed.path);
    return node && { size: node.userData.length, etag: `"m-${hash(node.userData)}"` };
  }
  if (parsed.kind !== 'chunk') return undefined;
  const ref = await chunkRefAt(session.objects, session.changes, parsed.node, parsed.coords);
  if (!ref) return undefined;
  return { size: ref.kind === 'inline' ? ref.data.length : ref.length, etag: `"${chunkTag(ref)}"` };
}
