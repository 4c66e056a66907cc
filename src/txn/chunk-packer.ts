// Small chunks written by one session share "pack" objects. An Icechunk native ref names a chunk
// object plus an offset and length inside it, so many chunks may live in one object and every
// reader (the reference included) fetches them by byte range. One put per pack instead of one
// per chunk is what makes writing many small chunks fast: creating a file or sending a PUT costs
// far more than copying a few KiB. A pack is written when it is full and before any snapshot can
// refer to it (commit, amend, flush); until then its chunks are read from memory. A pack whose
// write is aborted (or fails) stays unwritten and readable, and the next flush writes it.
import { floeError } from '../errors.ts';
import type { AbortOptions, ByteRange } from '../engine/storage/types.ts';
import { idToString, newChunkId, type ChunkId } from '../format/icechunk/ids.ts';
import type { RepoObjects } from './objects.ts';

/** How a session packs small chunks into shared pack objects (see {@link RepositoryOptions.chunkPacking}). */
export interface ChunkPacking {
  /** Chunks up to this many bytes are packed; larger ones get an object of their own. */
  maxChunkBytes: number;
  /** A pack is written once the next chunk would take it past this size. */
  packBytes: number;
}

/** 64 KiB chunks into 4 MiB packs: small enough that one ranged read of a pack stays cheap. */
export const DEFAULT_CHUNK_PACKING: ChunkPacking = { maxChunkBytes: 64 << 10, packBytes: 4 << 20 };
export const NO_CHUNK_PACKING: ChunkPacking = { maxChunkBytes: 0, packBytes: 0 };

export function resolveChunkPacking(option: Partial<ChunkPacking> | false | undefined): ChunkPacking {
  if (option === false) return NO_CHUNK_PACKING;
  const packing = { ...DEFAULT_CHUNK_PACKING, ...option };
  for (const [name, value] of Object.entries(packing)) {
    if (!Number.isSafeInteger(value) || value < 0) {
      throw floeError('INVALID_ARGUMENT', `chunkPacking.${name} must be a non-negative integer, got ${value}`);
    }
  }
  if (packing.maxChunkBytes > packing.packBytes) {
    throw floeError('INVALID_ARGUMENT', `chunkPacking.maxChunkBytes (${packing.maxChunkBytes}) must not exceed packBytes (${packing.packBytes})`);
  }
  return packing;
}

/** Where a written chunk lives: the native ref's object, offset and length. */
export interface ChunkPlacement {
  chunkId: ChunkId;
  offset: number;
  length: number;
}

interface OpenPack {
  readonly id: ChunkId;
  readonly buffer: Uint8Array;
  used: number;
}

export class ChunkPacker {
  private open: OpenPack | undefined;
  /** Sealed packs not yet known to be stored, by id string: readable, and retried by `flush`. */
  private readonly unwritten = new Map<string, { id: ChunkId; bytes: Uint8Array }>();

  constructor(
    private readonly objects: RepoObjects,
    private readonly packing: ChunkPacking,
  ) {}

  /** Stores a chunk's bytes (copied: callers may reuse their buffer) and says where they are. */
  async write(bytes: Uint8Array, options?: AbortOptions): Promise<ChunkPlacement> {
    if (bytes.length > this.packing.maxChunkBytes) {
      const chunkId = newChunkId();
      await this.objects.writeChunk(chunkId, bytes, options);
      return { chunkId, offset: 0, length: bytes.length };
    }
    if (this.open && this.open.used + bytes.length > this.packing.packBytes) await this.store(this.seal(), options);
    const pack = (this.open ??= { id: newChunkId(), buffer: new Uint8Array(this.packing.packBytes), used: 0 });
    const offset = pack.used;
    pack.buffer.set(bytes, offset);
    pack.used += bytes.length;
    return { chunkId: pack.id, offset, length: bytes.length };
  }

  /** The bytes of a chunk still in memory, or undefined when its object is in storage. */
  pending(chunkId: ChunkId, range: ByteRange & { offset: number; length: number }): Uint8Array | undefined {
    const key = idToString(chunkId);
    const bytes = this.open && idToString(this.open.id) === key ? this.open.buffer.subarray(0, this.open.used) : this.unwritten.get(key)?.bytes;
    return bytes?.subarray(range.offset, range.offset + range.length);
  }

  /** Writes every pack; after it resolves, every chunk written so far is in storage. */
  async flush(options?: AbortOptions): Promise<void> {
    if (this.open) this.seal();
    for (const pack of [...this.unwritten.values()]) await this.store(pack, options);
  }

  /** Drops unwritten packs (the session discarded its changes; nothing refers to them). */
  clear(): void {
    this.open = undefined;
    this.unwritten.clear();
  }

  /** Packs not yet in storage, for a fork to carry to the session that merges it. */
  unwrittenPacks(): { id: ChunkId; bytes: Uint8Array }[] {
    const open = this.open ? [{ id: this.open.id, bytes: this.open.buffer.subarray(0, this.open.used) }] : [];
    return [...this.unwritten.values(), ...open];
  }

  /** Takes over another session's unwritten packs (a merged fork's), to write them at commit. */
  adopt(packs: readonly { id: ChunkId; bytes: Uint8Array }[]): void {
    for (const pack of packs) this.unwritten.set(idToString(pack.id), pack);
  }

  private seal(): { id: ChunkId; bytes: Uint8Array } {
    const pack = this.open!;
    this.open = undefined;
    const sealed = { id: pack.id, bytes: pack.buffer.subarray(0, pack.used) };
    this.unwritten.set(idToString(pack.id), sealed);
    return sealed;
  }

  /**
   * Writes a pack; it leaves `unwritten` only once stored. writeChunk accepts the pack's id already
   * present only when it holds these bytes (an earlier attempt whose answer was lost, or the fork
   * it came from): any failure keeps the pack for the next flush, and so fails the commit.
   */
  private async store(pack: { id: ChunkId; bytes: Uint8Array }, options: AbortOptions | undefined): Promise<void> {
    await this.objects.writeChunk(pack.id, pack.bytes, options);
    this.unwritten.delete(idToString(pack.id));
  }
}
