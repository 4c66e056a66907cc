// An HDF5 file's groups and datasets: the object graph walked from the root group (symbol tables,
// compact links, dense links), each object's attributes (compact and dense) and each dataset's
// type, shape, layout, filters and fill value. Only structure is read, never data. A group that
// contains itself (directly or below) is CORRUPT_OBJECT; soft and external links are skipped.
import { readGroupBtree } from './btree1.ts';
import { readBtree2 } from './btree2.ts';
import { GlobalHeaps, openFractalHeap } from './heaps.ts';
import { corrupt, UNDEFINED, type Hdf5Sizes, type Hdf5Source } from './io.ts';
import {
  cursorOf,
  decodeAttribute,
  decodeDataspace,
  decodeDatatype,
  decodeDenseInfo,
  decodeFillValue,
  decodeFilters,
  decodeLayout,
  decodeLink,
  decodeSymbolTable,
  MSG,
  type Dataspace,
  type Filter,
  type Hdf5Type,
  type Layout,
  type Link,
  type RawAttribute,
} from './messages.ts';
import { readObjectHeader, readSuperblock, type Superblock } from './object-header.ts';

export interface Hdf5Group {
  /** '' for the root, else 'a/b'. */
  readonly path: string;
  readonly attributes: readonly RawAttribute[];
}

export interface Hdf5Dataset {
  readonly path: string;
  readonly address: number;
  readonly type: Hdf5Type;
  readonly space: Dataspace;
  readonly layout: Layout;
  readonly filters: readonly Filter[];
  /** The fill value's bytes when one is defined. */
  readonly fill: Uint8Array | undefined;
  readonly attributes: readonly RawAttribute[];
  /** Why it cannot be described (an external file, a shared message ...), when it cannot. */
  readonly problem?: string;
}

export interface Hdf5File {
  readonly superblock: Superblock;
  readonly groups: readonly Hdf5Group[];
  readonly datasets: readonly Hdf5Dataset[];
  readonly globalHeaps: GlobalHeaps;
  /** Dataset paths by object header address (dimension scales named by references). */
  readonly pathByAddress: ReadonlyMap<number, string>;
}

/** Objects one file may have. */
export const MAX_OBJECTS = 100_000;
const MAX_LINKS_PER_GROUP = 1_000_000;

export async function readHdf5File(src: Hdf5Source): Promise<Hdf5File> {
  const superblock = await readSuperblock(src);
  const sizes = superblock.sizes;
  const groups: Hdf5Group[] = [];
  const datasets: Hdf5Dataset[] = [];
  const pathByAddress = new Map<number, string>();
  let objects = 0;
  const visit = async (address: number, path: string, ancestors: readonly number[]): Promise<void> => {
    const object = path === '' ? 'the root group' : `/${path}`;
    if (ancestors.includes(address)) throw corrupt(src.name, object, 'the group contains itself (a cycle in the group graph)');
    if (++objects > MAX_OBJECTS) throw corrupt(src.name, object, `more than ${MAX_OBJECTS} objects`);
    const header = await readObjectHeader(src, sizes, address, object);
    const at = (type: number) => header.messages.find((m) => m.type === type);
    const attributes = await readAttributes(src, sizes, header.messages, object);
    const layoutMessage = at(MSG.layout);
    const cursor = (body: Uint8Array) => cursorOf(body, sizes, src.name, object);
    if (layoutMessage) {
      const typeMessage = at(MSG.datatype);
      const spaceMessage = at(MSG.dataspace);
      if (!typeMessage || !spaceMessage) throw corrupt(src.name, object, 'a dataset without a datatype or dataspace message');
      const shared = [typeMessage, spaceMessage, layoutMessage].some((m) => (m.flags & 2) !== 0);
      const fillMessage = at(MSG.fill) ?? at(MSG.fillOld);
      const filterMessage = at(MSG.filters);
      const problem = shared ? 'it uses a shared (committed) datatype or dataspace, which Floe does not read' : at(MSG.external) ? 'its data lives in external files' : undefined;
      const type = shared ? ({ kind: 'other', size: 0, what: 'a committed datatype' } as const) : decodeDatatype(cursor(typeMessage.body));
      datasets.push({
        path,
        address,
        type,
        space: shared ? { dims: null, maxDims: null } : decodeDataspace(cursor(spaceMessage.body)),
        layout: shared ? { kind: 'other', what: 'shared' } : decodeLayout(cursor(layoutMessage.body)),
        filters: filterMessage ? decodeFilters(cursor(filterMessage.body)) : [],
        fill: fillMessage && (fillMessage.flags & 2) === 0 ? decodeFillValue(cursor(fillMessage.body), fillMessage.type) : undefined,
        attributes,
        ...(problem ? { problem } : {}),
      });
      pathByAddress.set(address, path);
      return;
    }
    const table = at(MSG.symbolTable);
    if (!table && !at(MSG.linkInfo) && !at(MSG.link) && at(MSG.datatype)) return; // a committed (named) datatype
    const links: Link[] = [];
    if (table) {
      const t = decodeSymbolTable(cursor(table.body));
      for (const e of await readGroupBtree(src, sizes, t.btree, t.heap, object)) links.push({ name: e.name, kind: 'hard', address: e.address });
    }
    for (const m of header.messages) if (m.type === MSG.link) links.push(decodeLink(cursor(m.body)));
    const info = at(MSG.linkInfo);
    if (info) {
      const dense = decodeDenseInfo(cursor(info.body), 'link');
      if (dense.heap !== UNDEFINED && dense.nameIndex !== UNDEFINED) {
        const heap = await openFractalHeap(src, sizes, dense.heap, object);
        const tree = await readBtree2(src, sizes, dense.nameIndex, object, MAX_LINKS_PER_GROUP);
        const named: Link[] = [];
        for (const r of tree.records) named.push(decodeLink(cursor(await heap.get(r.subarray(4, 11)))));
        // The name index is ordered by hash: list by name, as HDF5's default iteration does.
        links.push(...named.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)));
      }
    }
    groups.push({ path, attributes });
    pathByAddress.set(address, path);
    for (const link of links) {
      if (link.kind !== 'hard') continue;
      await visit(link.address, path === '' ? link.name : `${path}/${link.name}`, [...ancestors, address]);
    }
  };
  await visit(superblock.rootAddress, '', []);
  return { superblock, groups, datasets, globalHeaps: new GlobalHeaps(src, sizes), pathByAddress };
}

async function readAttributes(src: Hdf5Source, sizes: Hdf5Sizes, messages: readonly { type: number; flags: number; body: Uint8Array }[], object: string): Promise<RawAttribute[]> {
  const out: RawAttribute[] = [];
  for (const m of messages) {
    if (m.type === MSG.attribute && (m.flags & 2) === 0) out.push(decodeAttribute(cursorOf(m.body, sizes, src.name, object)));
  }
  const info = messages.find((m) => m.type === MSG.attributeInfo);
  if (info) {
    const dense = decodeDenseInfo(cursorOf(info.body, sizes, src.name, object), 'attribute');
    if (dense.heap !== UNDEFINED && dense.nameIndex !== UNDEFINED) {
      const heap = await openFractalHeap(src, sizes, dense.heap, object);
      const tree = await readBtree2(src, sizes, dense.nameIndex, object, 100_000);
      const named: RawAttribute[] = [];
      for (const r of tree.records) named.push(decodeAttribute(cursorOf(await heap.get(r.subarray(0, 8)), sizes, src.name, object)));
      out.push(...named.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)));
    }
  }
  return out;
}
