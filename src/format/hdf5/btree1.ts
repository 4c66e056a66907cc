// Version-1 B-trees: group nodes (type 0: symbol table nodes named through a local heap) and
// chunk nodes (type 1: each chunk's element offset, stored size, filter mask and address; what
// netCDF-C 4.9 and libver='earliest' write). Nodes are visited once each, depth and count bounded.
import { Cursor, corrupt, readExactly, UNDEFINED, type Hdf5Sizes, type Hdf5Source } from './io.ts';

export interface ChunkRecord {
  /** The chunk's first element, per dimension. */
  readonly offset: readonly number[];
  readonly address: number;
  readonly size: number;
  readonly filterMask: number;
}

/** Nodes one tree may have (a hostile file cannot make the scan walk forever). */
export const MAX_NODES = 1_000_000;
const MAX_DEPTH = 64;

interface Node {
  readonly type: number;
  readonly level: number;
  readonly entries: number;
  readonly c: Cursor;
}

async function readNode(src: Hdf5Source, sizes: Hdf5Sizes, address: number, keySize: number, object: string): Promise<Node> {
  const headBytes = 8 + 2 * sizes.offsetSize;
  const head = new Cursor(await readExactly(src, address, headBytes, object), sizes, src.name, object);
  head.signature('TREE');
  const type = head.u8();
  const level = head.u8();
  const entries = head.u16();
  const body = await readExactly(src, address + headBytes, (entries + 1) * keySize + entries * sizes.offsetSize, object);
  return { type, level, entries, c: new Cursor(body, sizes, src.name, object) };
}

/** Nodes of one level read at once: siblings are independent, so a remote source can batch them. */
export const LEVEL_BATCH = 64;

/** Visits the tree level by level (siblings read together), calling `leaf` on the leaves in key order. */
async function walk(src: Hdf5Source, sizes: Hdf5Sizes, root: number, keySize: number, type: number, object: string, leaf: (node: Node) => void): Promise<void> {
  const seen = new Set<number>();
  let level: number[] = [root];
  let expected: number | undefined;
  for (let depth = 0; level.length > 0; depth++) {
    if (depth > MAX_DEPTH) throw corrupt(src.name, object, `the B-tree is deeper than ${MAX_DEPTH}`);
    for (const address of level) {
      if (address === UNDEFINED) throw corrupt(src.name, object, 'a B-tree child address is undefined');
      if (seen.has(address)) throw corrupt(src.name, object, `the B-tree node at byte ${address} is reached twice (the tree loops)`);
      if (seen.size >= MAX_NODES) throw corrupt(src.name, object, `the B-tree has more than ${MAX_NODES} nodes`);
      seen.add(address);
    }
    const nodes: Node[] = [];
    for (let i = 0; i < level.length; i += LEVEL_BATCH) {
      nodes.push(...(await Promise.all(level.slice(i, i + LEVEL_BATCH).map((a) => readNode(src, sizes, a, keySize, object)))));
    }
    const next: number[] = [];
    for (const node of nodes) {
      if (node.type !== type) throw node.c.fail(`a B-tree node of type ${node.type} where type ${type} was expected`);
      if (expected !== undefined && node.level !== expected) throw node.c.fail(`a B-tree node at level ${node.level} where level ${expected} was expected`);
      if (node.level === 0) {
        leaf(node);
        continue;
      }
      for (let i = 0; i < node.entries; i++) {
        node.c.skip(keySize);
        next.push(node.c.address());
      }
    }
    expected = (nodes[0]?.level ?? 1) - 1;
    level = next;
  }
}

/** Every chunk of a chunked dataset of rank `rank` indexed by the v1 B-tree at `root`. */
export async function readChunkBtree(src: Hdf5Source, sizes: Hdf5Sizes, root: number, rank: number, object: string, maxChunks: number): Promise<ChunkRecord[]> {
  const keySize = 8 + 8 * (rank + 1);
  const out: ChunkRecord[] = [];
  await walk(src, sizes, root, keySize, 1, object, (node) => {
    const c = node.c;
    for (let i = 0; i < node.entries; i++) {
      const size = c.u32();
      const filterMask = c.u32();
      const offset: number[] = [];
      for (let d = 0; d < rank; d++) offset.push(c.uint(8, 'a chunk offset'));
      c.skip(8);
      const address = c.address();
      if (out.length >= maxChunks) throw c.fail(`more than ${maxChunks} chunks`);
      out.push({ offset, address, size, filterMask });
    }
  });
  return out;
}

/** The (name, object header address) entries of a group's symbol table. */
export async function readGroupBtree(src: Hdf5Source, sizes: Hdf5Sizes, root: number, heapAddress: number, object: string): Promise<{ name: string; address: number }[]> {
  const heap = await readLocalHeap(src, sizes, heapAddress, object);
  const out: { name: string; address: number }[] = [];
  const nodes: number[] = [];
  await walk(src, sizes, root, sizes.lengthSize, 0, object, (node) => {
    for (let i = 0; i < node.entries; i++) {
      node.c.skip(sizes.lengthSize);
      nodes.push(node.c.address());
    }
  });
  for (const at of nodes) {
    const head = new Cursor(await readExactly(src, at, 8, object), sizes, src.name, object);
    head.signature('SNOD');
    head.skip(2);
    const count = head.u16();
    const entrySize = 2 * sizes.offsetSize + 24;
    const c = new Cursor(await readExactly(src, at + 8, count * entrySize, object), sizes, src.name, object);
    for (let i = 0; i < count; i++) {
      const nameOffset = c.uint(sizes.lengthSize);
      const address = c.address();
      c.skip(24);
      out.push({ name: heapString(heap, nameOffset, src.name, object), address });
    }
  }
  return out;
}

async function readLocalHeap(src: Hdf5Source, sizes: Hdf5Sizes, address: number, object: string): Promise<Uint8Array> {
  const head = new Cursor(await readExactly(src, address, 8 + 2 * sizes.lengthSize + sizes.offsetSize, object), sizes, src.name, object);
  head.signature('HEAP');
  head.skip(4);
  const size = head.length();
  head.length();
  const data = head.address();
  return readExactly(src, data, size, object);
}

function heapString(heap: Uint8Array, offset: number, file: string, object: string): string {
  if (offset < 0 || offset >= heap.length) throw corrupt(file, object, `a link name at ${offset} lies outside its local heap (${heap.length} bytes)`);
  const end = heap.indexOf(0, offset);
  if (end < 0) throw corrupt(file, object, `a link name at ${offset} of its local heap is not terminated`);
  return new TextDecoder().decode(heap.subarray(offset, end));
}
