// A Zarr key of a snapshot as an HTTP resource: its size (for Range and Content-Length) and an
// ETag that names its content, found without reading the bytes. Chunk ETags come from the chunk
// reference (chunk object id, offset, length), so a chunk unchanged across commits keeps its ETag
// on every branch and tag; metadata ETags hash the zarr.json bytes.
import { createHash } from 'node:crypto';
import { isFloeError } from '../../errors.ts';
import type { ChunkLocation, ReadSource } from '../../engine/read-source.ts';
import { resolveKey, type SourceKey } from '../../engine/source-keys.ts';

export interface StoredObject {
  readonly size: number;
  readonly etag: string;
}

const hash = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('base64url').slice(0, 27);

/** A native location's object is a chunk object id in a repository, so its tag names the bytes. */
function chunkTag(location: Exclude<ChunkLocation, { kind: 'missing' }>): string {
  switch (location.kind) {
    case 'inline':
      return `i-${hash(location.bytes)}`;
    case 'native':
      return `c-${location.object}-${location.offset}-${location.length}`;
    case 'virtual':
      return `v-${hash(new TextEncoder().encode(`${location.location}\n${location.offset}\n${location.length}\n${JSON.stringify(location.checksum)}`))}`;
  }
}

/** Undefined when the snapshot has nothing at `key` (including keys that are not canonical). */
export async function statKey(source: ReadSource, key: string): Promise<StoredObject | undefined> {
  let parsed: SourceKey | undefined;
  try {
    parsed = await resolveKey(source, key);
  } catch (err) {
    if (isFloeError(err, 'INVALID_KEY')) return undefined;
    throw err;
  }
  if (!parsed) return undefined;
  if (parsed.kind === 'metadata') return { size: parsed.node.document.length, etag: `"m-${hash(parsed.node.document)}"` };
  const location = await source.locateChunk(parsed.node.path, parsed.coords);
  if (location.kind === 'missing') return undefined;
  return { size: location.kind === 'inline' ? location.bytes.length : location.length, etag: `"${chunkTag(location)}"` };
}
