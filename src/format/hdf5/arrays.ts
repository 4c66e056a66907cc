// The chunk indexes of HDF5 1.10 (`libver='latest'`) other than B-trees: fixed arrays (paged or
// not) and extensible arrays (index block, secondary blocks, data blocks). Each yields entries
// (address, stored size, filter mask) by linear chunk index; missing blocks are unallocated chunks.
import { checkChecksum, Cursor, corrupt, readExactly, UNDEFINED, type Hdf5Sizes, type Hdf5Source } from './io.ts';

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
  const readDataBlock = async (at: number, n: number) => {
    const paged = n > pageElements;
    const pages = paged ? n / pageElements : 0;
    const prefix = 6 + O + offsetBytes;
    const body = paged ? prefix + 4 + n * entrySize + pages * 4 : prefix + n * entrySize + 4;
    const want = Math.min(n, realized - out.length);
    if (at === UNDEFINED) {
      for (let i = 0; i < want; i++) out.push({ address: UNDEFINED, size: 0, filterMask: 0 });
      return;
    }
    const dc = new Cursor(await readExactly(src, at, body, object), sizes, src.name, object);
    dc.signature('EADB');
    // Paged blocks (more than 2^pageBits entries, only past ~131,000 chunks) check the prefix only.
    checkChecksum(dc, paged ? prefix : body - 4, 'an extensible array data block');
    dc.pos = prefix + (paged ? 4 : 0);
    const next = entryReader(dc, filtered, entrySize, sizes);
    for (let i = 0; i < want; i++) {
      out.push(next());
      if (paged && (i + 1) % pageElements === 0) dc.skip(4);
    }
  };
  let s = 0;
  let d = 0;
  // Data blocks addressed from the index block, super block by super block.
  for (s = 0; s < inIndexBlock && out.length < realized; s++) {
    for (let k = 0; k < dataBlocksOf(s) && out.length < realized; k++) {
      const at = direct[d++];
      if (at === undefined) throw corrupt(src.name, object, 'an extensible array index block has too few data block pointers');
      await readDataBlock(at, elementsOf(s));
    }
  }
  for (let j = 0; s < superBlocks && out.length < realized; s++, j++) {
    const at = secondary[j] ?? UNDEFINED;
    const n = dataBlocksOf(s);
    const elements = elementsOf(s);
    if (at === UNDEFINED) {
      for (let k = 0; k < n && out.length < realized; k++) await readDataBlock(UNDEFINED, elements);
      continue;
    }
    const paged = elements > pageElements;
    const bitmap = paged ? Math.ceil((n * (elements / pageElements)) / 8) : 0;
    const sc = new Cursor(await readExactly(src, at, 6 + O + offsetBytes + bitmap + n * O + 4, object), sizes, src.name, object);
    sc.signature('EASB');
    checkChecksum(sc, sc.bytes.length - 4, 'an extensible array secondary block');
    sc.pos = 6 + O + offsetBytes + bitmap;
    const blocks: number[] = [];
    for (let k = 0; k < n; k++) blocks.push(sc.address());
    for (const b of blocks) if (out.length < realized) await readDataBlock(b, elements);
  }
  return out;
}
