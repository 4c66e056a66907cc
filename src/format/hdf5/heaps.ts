// Fractal heaps (dense link and attribute storage: objects found by heap ID through the doubling
// table of direct and indirect blocks) and global heap collections (variable-length data:
// strings and the references of DIMENSION_LIST). Blocks visited once each and bounded.
import { checkChecksum, Cursor, corrupt, encodedSizeOf, readExactly, UNDEFINED, type Hdf5Sizes, type Hdf5Source } from './io.ts';

interface DirectBlock {
  readonly heapOffset: number;
  readonly address: number;
  readonly size: number;
}

export interface FractalHeap {
  /** The object a heap ID names (managed and tiny objects). */
  get(id: Uint8Array): Promise<Uint8Array>;
}

const MAX_BLOCKS = 100_000;

export async function openFractalHeap(src: Hdf5Source, sizes: Hdf5Sizes, address: number, object: string): Promise<FractalHeap> {
  const O = sizes.offsetSize;
  const L = sizes.lengthSize;
  const c = new Cursor(await readExactly(src, address, 4 + 1 + 2 + 2 + 1 + 4 + 12 * L + 3 * O + 2 + 2 + 2 + 2 + 4, object), sizes, src.name, object);
  c.signature('FRHP');
  c.u8();
  c.u16(); // heap ID length
  const filterLength = c.u16();
  c.u8(); // flags (direct block checksums are not verified)
  const maxManaged = c.u32();
  c.length();
  c.address();
  c.length();
  c.address();
  c.length();
  c.length();
  c.length();
  c.length();
  c.length();
  c.length();
  c.length();
  c.length();
  const width = c.u16();
  const startSize = c.length();
  const maxDirect = c.length();
  const maxHeapBits = c.u16();
  c.u16();
  const root = c.address();
  const rootRows = c.u16();
  if (filterLength > 0) throw c.fail('a fractal heap with I/O filters (Floe reads unfiltered heaps)');
  checkChecksum(c, c.pos, 'the fractal heap header');
  if (width === 0 || width > 65536 || startSize === 0 || maxHeapBits === 0 || maxHeapBits > 64) throw c.fail('a fractal heap with an impossible doubling table');
  const offsetBytes = Math.ceil(maxHeapBits / 8);
  const maxDirectRows = Math.log2(maxDirect) - Math.log2(startSize) + 2;
  const rowSize = (row: number) => (row === 0 ? startSize : startSize * 2 ** (row - 1));
  const blocks: DirectBlock[] = [];
  const seen = new Set<number>();
  const walkIndirect = async (at: number, rows: number, heapOffset: number, depth: number): Promise<void> => {
    if (seen.has(at) || seen.size > MAX_BLOCKS || depth > 64) throw corrupt(src.name, object, `the fractal heap block at byte ${at} is reached twice or the heap is too large`);
    seen.add(at);
    const directRows = Math.min(rows, maxDirectRows);
    const entries = rows * width;
    const head = 4 + 1 + O + offsetBytes;
    const ic = new Cursor(await readExactly(src, at, head + entries * O + 4, object), sizes, src.name, object);
    ic.signature('FHIB');
    checkChecksum(ic, head + entries * O, 'a fractal heap indirect block');
    ic.skip(head - 4);
    let off = heapOffset;
    for (let i = 0; i < entries; i++) {
      const row = Math.floor(i / width);
      const child = ic.address();
      const span = rowSize(row);
      if (row < directRows) {
        if (child !== UNDEFINED) blocks.push({ heapOffset: off, address: child, size: span });
        off += span;
      } else {
        const childRows = Math.log2(span / (width * startSize)) + 1;
        if (!Number.isInteger(childRows) || childRows < 1) throw ic.fail('a fractal heap indirect block of impossible size');
        if (child !== UNDEFINED) await walkIndirect(child, childRows, off, depth + 1);
        off += span * width;
      }
    }
  };
  if (root !== UNDEFINED) {
    if (rootRows === 0) blocks.push({ heapOffset: 0, address: root, size: startSize });
    else await walkIndirect(root, rootRows, 0, 0);
  }
  const cache = new Map<number, Uint8Array>();
  const blockBytes = async (b: DirectBlock) => {
    let bytes = cache.get(b.address);
    if (!bytes) {
      bytes = await readExactly(src, b.address, b.size, object);
      if (new TextDecoder('latin1').decode(bytes.subarray(0, 4)) !== 'FHDB') throw corrupt(src.name, object, `no fractal heap direct block at byte ${b.address}`);
      cache.set(b.address, bytes);
    }
    return bytes;
  };
  const lengthBytes = Math.min(Math.ceil(Math.log2(maxDirect) / 8), encodedSizeOf(maxManaged));
  return {
    async get(id) {
      const ic = new Cursor(id, sizes, src.name, object);
      const first = ic.u8();
      const kind = (first >> 4) & 3;
      if (kind === 2) {
        const n = (first & 0x0f) + 1;
        return ic.bytesOf(n).slice();
      }
      if (kind !== 0) throw ic.fail('a huge object in a fractal heap (Floe reads managed and tiny objects)');
      const offset = ic.uint(offsetBytes);
      const length = ic.uint(Math.max(1, lengthBytes));
      const b = blocks.find((x) => offset >= x.heapOffset && offset < x.heapOffset + x.size);
      if (!b || offset + length > b.heapOffset + b.size) throw ic.fail(`heap object at ${offset} (${length} bytes) lies outside the heap's blocks`);
      const bytes = await blockBytes(b);
      return bytes.subarray(offset - b.heapOffset, offset - b.heapOffset + length);
    },
  };
}

/** Global heap collections, each read once. */
export class GlobalHeaps {
  private readonly collections = new Map<number, Map<number, Uint8Array>>();
  constructor(
    private readonly src: Hdf5Source,
    private readonly sizes: Hdf5Sizes,
  ) {}

  async get(address: number, index: number, object: string): Promise<Uint8Array> {
    let col = this.collections.get(address);
    if (!col) {
      const sizes = this.sizes;
      const head = new Cursor(await readExactly(this.src, address, 8 + sizes.lengthSize, object), sizes, this.src.name, object);
      head.signature('GCOL');
      head.skip(4);
      const size = head.length();
      const c = new Cursor(await readExactly(this.src, address, size, object), sizes, this.src.name, object);
      c.pos = 8 + sizes.lengthSize;
      col = new Map();
      while (c.remaining >= 8 + sizes.lengthSize) {
        const i = c.u16();
        c.skip(6);
        const n = c.length();
        if (i === 0) break;
        const bytes = c.bytesOf(n);
        c.skip(Math.min(c.remaining, (8 - (n % 8)) % 8));
        col.set(i, bytes);
      }
      this.collections.set(address, col);
    }
    const got = col.get(index);
    if (!got) throw corrupt(this.src.name, object, `global heap object ${index} at byte ${address} does not exist`);
    return got;
  }
}
