// Version-2 B-trees: their records in order, raw (the caller decodes: link names, attribute
// names, chunk records). Node record counts are sized from the node size as the format defines;
// nodes visited once each, depth and count bounded; a node's children are read together (up to
// LEVEL_BATCH at once), so a remote source can batch them.
import { checkChecksum, Cursor, corrupt, encodedSizeOf, readExactly, UNDEFINED, type Hdf5Sizes, type Hdf5Source } from './io.ts';
import { LEVEL_BATCH, MAX_NODES } from './btree1.ts';

export interface Btree2 {
  readonly type: number;
  readonly recordSize: number;
  readonly records: readonly Uint8Array[];
}

const PREFIX = 10; // signature, version, type, checksum

export async function readBtree2(src: Hdf5Source, sizes: Hdf5Sizes, address: number, object: string, maxRecords: number): Promise<Btree2> {
  const head = new Cursor(await readExactly(src, address, 16 + sizes.offsetSize + sizes.lengthSize + 6, object), sizes, src.name, object);
  head.signature('BTHD');
  head.u8();
  const type = head.u8();
  const nodeSize = head.u32();
  const recordSize = head.u16();
  const depth = head.u16();
  head.skip(2);
  const root = head.address();
  const rootRecords = head.u16();
  const total = head.length();
  checkChecksum(head, head.pos, 'the v2 B-tree header');
  if (recordSize === 0 || nodeSize <= PREFIX || depth > 64) throw head.fail(`a v2 B-tree with ${nodeSize}-byte nodes, ${recordSize}-byte records and depth ${depth}`);
  if (total > maxRecords) throw head.fail(`a v2 B-tree of ${total} records, more than ${maxRecords}`);
  // Per depth: the most records a node holds, the most below it, and their encoded widths.
  const maxRec: number[] = [Math.floor((nodeSize - PREFIX) / recordSize)];
  const cumMax: number[] = [maxRec[0] as number];
  for (let d = 1; d <= depth; d++) {
    const pointer = sizes.offsetSize + encodedSizeOf(maxRec[d - 1] as number) + (d > 1 ? encodedSizeOf(cumMax[d - 1] as number) : 0);
    const m = Math.floor((nodeSize - PREFIX - pointer) / (recordSize + pointer));
    if (m <= 0) throw head.fail('v2 B-tree nodes too small for their records');
    maxRec.push(m);
    cumMax.push(Math.min(Number.MAX_SAFE_INTEGER, (m + 1) * (cumMax[d - 1] as number) + m));
  }
  if (root === UNDEFINED || total === 0) return { type, recordSize, records: [] };
  const seen = new Set<number>();
  let leafRecords = 0;
  /** The records of the subtree at `at`, in order: each child's, then the record after it. */
  const visit = async (at: number, count: number, d: number): Promise<Uint8Array[]> => {
    if (at === UNDEFINED) throw corrupt(src.name, object, 'a v2 B-tree child address is undefined');
    if (seen.has(at)) throw corrupt(src.name, object, `the v2 B-tree node at byte ${at} is reached twice (the tree loops)`);
    if (seen.size >= MAX_NODES) throw corrupt(src.name, object, `the v2 B-tree has more than ${MAX_NODES} nodes`);
    seen.add(at);
    if (count > (maxRec[d] as number)) throw corrupt(src.name, object, `a v2 B-tree node claims ${count} records, more than fit`);
    const c = new Cursor(await readExactly(src, at, nodeSize, object), sizes, src.name, object);
    c.signature(d === 0 ? 'BTLF' : 'BTIN');
    c.skip(1);
    if (c.u8() !== type) throw c.fail('a v2 B-tree node of another type');
    const own: Uint8Array[] = [];
    for (let i = 0; i < count; i++) own.push(c.bytesOf(recordSize));
    if (d === 0) {
      checkChecksum(c, c.pos, 'a v2 B-tree leaf');
      leafRecords += own.length;
      if (leafRecords > maxRecords) throw c.fail(`more than ${maxRecords} records`);
      return own;
    }
    const children: { at: number; count: number }[] = [];
    for (let i = 0; i <= count; i++) {
      const child = c.address();
      const n = c.uint(encodedSizeOf(maxRec[d - 1] as number));
      if (d > 1) c.uint(encodedSizeOf(cumMax[d - 1] as number));
      children.push({ at: child, count: n });
    }
    checkChecksum(c, c.pos, 'a v2 B-tree internal node');
    const below: Uint8Array[][] = [];
    for (let i = 0; i < children.length; i += LEVEL_BATCH) {
      below.push(...(await Promise.all(children.slice(i, i + LEVEL_BATCH).map((child) => visit(child.at, child.count, d - 1)))));
    }
    const out: Uint8Array[] = [];
    for (let i = 0; i <= count; i++) {
      for (const r of below[i] as Uint8Array[]) out.push(r);
      const r = own[i];
      if (r) out.push(r);
    }
    return out;
  };
  return { type, recordSize, records: await visit(root, rootRecords, depth) };
}
