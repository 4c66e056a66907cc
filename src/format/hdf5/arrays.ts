// The chunk indexes of HDF5 1.10 (`libver='latest'`) other than B-trees: fixed arrays (paged or
// not) and extensible arrays (index block, secondary blocks, data blocks). Each yields entries
// (address, stored size, filter mask) by linear chunk index; missing blocks are unallocated chunks.
import { checkChecksum, Cursor, corrupt, readExactly, UNDEFINED, type Hdf5Sizes, type Hdf5Source } from './io.ts';
import { LEVEL_BATCH } from './btree1.ts';

/** `read` of every item, in order, up to LEVEL_BATCH at once (so a remote source can batch them). */
async function inBatches<T, R>(items: readonly T[], read: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = [];
  for (let i = 0; i < items.length; i += LEVEL_BATCH) out.push(...(await Promise.all(items.slice(i, i + LEVEL_BATCH).map(read))));
  return out;
}

export interface ArrayEntry {
  readonly address: number;
  readonly size: number;
  readonly filterMask: number;
}

function entryReader(c: Cursor, filtered: boolean, entrySize: number, sizes: Hdf5Sizes): () => ArrayEntry {
  return () => {
    const address = c.address();
    if (!filtered) return { address, size: -1, filterMask: 0 };
    const size = c.uint(entrySize - sizes.offsetSize - 4, 'a chunk size');
    return { address, size, filterMask: c.u32() };
  };
}

/** Entries of the fixed array at `address`, in linear chunk order. */
export async function readFixedArray(src: Hdf5Source, sizes: Hdf5Sizes, address: number, object: string, maxEntries: number): Promise<ArrayEntry[]> {
  const O = sizes.offsetSize;
  const h = new Cursor(await readExactly(src, address, 8 + sizes.lengthSize + O + 4, object), sizes, src.name, object);
  h.signature('FAHD');
  h.u8();
  const client = h.u8();
  const entrySize = h.u8();
  const pageBits = h.u8();
  const count = h.length();
  const block = h.address();
  checkChecksum(h, h.pos, 'the fixed array header');
  if (count > maxEntries) throw h.fail(`a fixed array of ${count} chunks, more than ${maxEntries}`);
  if (entrySize < O || pageBits > 32) throw h.fail('a fixed array with impossible entries');
  const out: ArrayEntry[] = [];
  if (block === UNDEFINED || count === 0) return out;
  const pageEntries = 2 ** pageBits;
  const paged = count > pageEntries;
  const pages = paged ? Math.ceil(count / pageEntries) : 0;
  const prefix = 6 + O + (paged ? Math.ceil(pages / 8) + 4 : 0);
  const total = paged ? prefix + count * entrySize + pages * 4 : prefix + count * entrySize + 4;
  const c = new Cursor(await readExactly(src, block, total, object), sizes, src.name, object);
  c.signature('FADB');
  if (paged) checkChecksum(c, prefix - 4, 'the fixed array data block');
  else checkChecksum(c, prefix + count * entrySize, 'the fixed array data block');
  c.pos = prefix;
  const next = entryReader(c, client === 1, entrySize, sizes);
  for (let i = 0; i < count; i++) {
    out.push(next());
    if (paged && ((i + 1) % pageEntries === 0 || i + 1 === count)) {
      // Each page ends with the checksum of its own entries.
      const pageStart = c.pos - (i % pageEntries + 1) * entrySize;
      const page = new Cursor(c.bytes.subarray(pageStart, c.pos + 4), sizes, src.name, object);
      checkChecksum(page, c.pos - pageStart, 'a fixed array data block page');
      c.skip(4);
    }
  }
  return out;
}

/** Entries of the extensible array at `address` (up to its realized element count). */
export async function readExtensibleArray(src: Hdf5Source, sizes: Hdf5Sizes, address: number, object: string, maxEntries: number): Promise<ArrayEntry[]> {
  const O = sizes.offsetSize;
  const L = sizes.lengthSize;
  const h = new Cursor(await readExactly(src, address, 12 + 6 * L + O + 4, object), sizes, src.name, object);
  h.signature('EAHD');
  h.u8();
  const client = h.u8();
  const entrySize = h.u8();
  const maxBits = h.u8();
  const indexElements = h.u8();
  const minDataElements = h.u8();
  const minPointers = h.u8();
  const pageBits = h.u8();
  h.skip(5 * L);
  const realized = h.length();
  const indexBlock = h.address();
  checkChecksum(h, h.pos, 'the extensible array header');
  if (realized > maxEntries) throw h.fail(`an extensible array of ${realized} chunks, more than ${maxEntries}`);
  if (entrySize < O || maxBits === 0 || maxBits > 64 || minDataElements === 0 || minPointers === 0 || pageBits > 32) throw h.fail('an extensible array with impossible parameters');
  const out: ArrayEntry[] = [];
  if (indexBlock === UNDEFINED || realized === 0) return out;
  const filtered = client === 1;
  const offsetBytes = Math.ceil(maxBits / 8);
  // Super blocks: s holds 2^floor(s/2) data blocks of 2^ceil(s/2) * minDataElements elements.
  const superBlocks = 1 + maxBits - Math.log2(minDataElements);
  const inIndexBlock = 2 * Math.log2(minPointers);
  if (!Number.isInteger(superBlocks) || !Number.isInteger(inIndexBlock)) throw h.fail('extensible array parameters are not powers of two');
  const dataBlocksOf = (s: number) => 2 ** Math.floor(s / 2);
  const elementsOf = (s: number) => 2 ** Math.ceil(s / 2) * minDataElements;
  const directPointers = 2 * (minPointers - 1);
  const secondaryPointers = Math.max(0, superBlocks - inIndexBlock);
  const ic = new Cursor(await readExactly(src, indexBlock, 6 + O + indexElements * entrySize + (directPointers + secondaryPointers) * O + 4, object), sizes, src.name, object);
  ic.signature('EAIB');
  checkChecksum(ic, ic.bytes.length - 4, 'the extensible array index block');
  ic.skip(2 + O);
  const fromIndex = entryReader(ic, filtered, entrySize, sizes);
  for (let i = 0; i < indexElements && out.length < realized; i++) out.push(fromIndex());
  ic.pos = 6 + O + indexElements * entrySize;
  const direct: number[] = [];
  for (let i = 0; i < directPointers; i++) direct.push(ic.address());
  const secondary: number[] = [];
  for (let i = 0; i < secondaryPointers; i++) secondary.push(ic.address());
  const pageElements = 2 ** pageBits;
  /** The first `want` entries of the data block at `at` (unallocated chunks when it is undefined). */
  const readDataBlock = async (at: number, n: number, want: number): Promise<ArrayEntry[]> => {
    if (at === UNDEFINED) return Array.from({ length: want }, () => ({ address: UNDEFINED, size: 0, filterMask: 0 }));
    const paged = n > pageElements;
    const pages = paged ? n / pageElements : 0;
    const prefix = 6 + O + offsetBytes;
    const body = paged ? prefix + 4 + n * entrySize + pages * 4 : prefix + n * entrySize + 4;
    const dc = new Cursor(await readExactly(src, at, body, object), sizes, src.name, object);
    dc.signature('EADB');
    // Paged blocks (more than 2^pageBits entries, only past ~131,000 chunks) check the prefix only.
    checkChecksum(dc, paged ? prefix : body - 4, 'an extensible array data block');
    dc.pos = prefix + (paged ? 4 : 0);
    const next = entryReader(dc, filtered, entrySize, sizes);
    const entries: ArrayEntry[] = [];
    for (let i = 0; i < want; i++) {
      entries.push(next());
      if (paged && (i + 1) % pageElements === 0) dc.skip(4);
    }
    return entries;
  };
  // The data blocks that hold the realized entries, in order: first those the index block points
  // at, super block by super block, then those of the secondary blocks (read together).
  const blocks: { at: number; elements: number; want: number }[] = [];
  let planned = out.length;
  const plan = (at: number, elements: number) => {
    const want = Math.min(elements, realized - planned);
    blocks.push({ at, elements, want });
    planned += want;
  };
  let s = 0;
  let d = 0;
  for (s = 0; s < inIndexBlock && planned < realized; s++) {
    for (let k = 0; k < dataBlocksOf(s) && planned < realized; k++) {
      const at = direct[d++];
      if (at === undefined) throw corrupt(src.name, object, 'an extensible array index block has too few data block pointers');
      plan(at, elementsOf(s));
    }
  }
  const wanted: { at: number; n: number; elements: number; covers: number }[] = [];
  for (let j = 0, covered = planned; s < superBlocks && covered < realized; s++, j++) {
    wanted.push({ at: secondary[j] ?? UNDEFINED, n: dataBlocksOf(s), elements: elementsOf(s), covers: covered });
    covered += dataBlocksOf(s) * elementsOf(s);
  }
  const readSecondary = async ({ at, n, elements, covers }: { at: number; n: number; elements: number; covers: number }): Promise<number[]> => {
    // Only the pointers to blocks holding realized entries (a hostile n is not allocated).
    const needed = Math.min(n, Math.ceil((realized - covers) / elements));
    if (at === UNDEFINED) return Array.from({ length: needed }, () => UNDEFINED);
    const bitmap = elements > pageElements ? Math.ceil((n * (elements / pageElements)) / 8) : 0;
    const sc = new Cursor(await readExactly(src, at, 6 + O + offsetBytes + bitmap + n * O + 4, object), sizes, src.name, object);
    sc.signature('EASB');
    checkChecksum(sc, sc.bytes.length - 4, 'an extensible array secondary block');
    sc.pos = 6 + O + offsetBytes + bitmap;
    return Array.from({ length: needed }, () => sc.address());
  };
  const pointers = await inBatches(wanted, readSecondary);
  for (const [i, w] of wanted.entries()) {
    for (const at of pointers[i] as number[]) if (planned < realized) plan(at, w.elements);
  }
  for (const entries of await inBatches(blocks, (b) => readDataBlock(b.at, b.elements, b.want))) {
    for (const e of entries) out.push(e);
  }
  return out;
}
