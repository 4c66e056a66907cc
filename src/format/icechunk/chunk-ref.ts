// Chunk refs, the entries of a manifest: native (a chunk object in this repository), inline (the
// bytes themselves) or virtual (a byte range of an object elsewhere). Apart from manifest.ts so
// that manifest-columns.ts, which holds refs column-wise for manifest.ts, need not import it.
import type { ChunkId } from './ids.ts';

export type VirtualChecksum = { etag: string } | { lastModified: number } | null;

/**
 * The schema's `extra` bytes (Manifest, ArrayManifest, ChunkRef): reserved for future spec
 * extensions, opaque to Floe, kept byte-exact from decode to encode. Absent when the file has none.
 */
export interface Extra {
  extra?: Uint8Array;
}

export interface NativeChunkRef extends Extra {
  kind: 'native';
  index: number[];
  chunkId: ChunkId;
  offset: number;
  length: number;
}
export interface InlineChunkRef extends Extra {
  kind: 'inline';
  index: number[];
  data: Uint8Array;
}
export interface VirtualChunkRef extends Extra {
  kind: 'virtual';
  index: number[];
  location: string;
  offset: number;
  length: number;
  checksum: VirtualChecksum;
}
export type ChunkRef = NativeChunkRef | InlineChunkRef | VirtualChunkRef;
