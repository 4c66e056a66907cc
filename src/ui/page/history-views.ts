// Branches and tags, the log of a ref, and the diff of a snapshot against its parent (arrays and
// chunk counts changed, as `floe diff` lists them). Everything from the repository is text.
/// <reference lib="dom" />
import { nodeMetadata } from '../../engine/read-source.ts';
import { h, viewLink } from './dom.ts';
import type { Connection } from './connection.ts';

const LOG_LIMIT = 200;

export async function refsView(conn: Connection): Promise<HTMLElement> {
  const [branches, tags] = await Promise.all([conn.repo.listBranches(), conn.repo.listTags()]);
  const list = async (names: string[], lookup: (n: string) => Promise<string>) => {
    const rows = await Promise.all(names.map(async (name) => h('li', {}, viewLink(name, { view: 'log', ref: name }), ' ', h('span', { class: 'id muted' }, await lookup(name)), ' · ', viewLink('tree', { view: 'tree', ref: name, path: '/' }))));
    return rows.length > 0 ? h('ul', {}, ...rows) : h('p', { class: 'muted' }, 'none');
  };
  return h('section', {},
    h('h1', {}, 'Branches'), await list(branches, (b) => conn.repo.lookupBranch(b)),
    h('h1', {}, 'Tags'), await list(tags, (t) => conn.repo.lookupTag(t)));
}

export async function logView(conn: Connection, ref: string): Promise<HTMLElement> {
  const { snapshotId } = await conn.repo.resolve(ref);
  const rows: HTMLElement[] = [];
  for await (const s of conn.repo.ancestry({ snapshotId })) {
    if (rows.length >= LOG_LIMIT) break;
    const author = typeof s.metadata.author === 'string' ? s.metadata.author : typeof s.metadata.user === 'string' ? s.metadata.user : '';
    rows.push(h('tr', {},
      h('td', { class: 'id' }, viewLink(s.id, { view: 'diff', ref: s.id })),
      h('td', {}, h('time', { datetime: s.writtenAt.toISOString() }, s.writtenAt.toISOString().replace('T', ' ').replace(/\.\d+Z$/, 'Z'))),
      h('td', {}, author),
      h('td', {}, s.message),
      h('td', {}, viewLink('tree', { view: 'tree', ref: s.id, path: '/' }))));
  }
  return h('section', {},
    h('h1', {}, 'Log of ', h('code', {}, ref)),
    h('table', {}, h('thead', {}, h('tr', {}, h('th', {}, 'snapshot'), h('th', {}, 'time (UTC)'), h('th', {}, 'author'), h('th', {}, 'message'), h('th', {}, ''))), h('tbody', {}, ...rows)),
    rows.length >= LOG_LIMIT ? h('p', { class: 'muted' }, `the first ${LOG_LIMIT} snapshots`) : null);
}

export async function diffView(conn: Connection, ref: string): Promise<HTMLElement> {
  const { snapshotId } = await conn.repo.resolve(ref);
  const snapshot = await conn.repo.lookupSnapshot(snapshotId);
  const head = h('section', {}, h('h1', {}, 'Changes in ', h('code', {}, snapshotId)), h('p', {}, snapshot.message));
  if (snapshot.parentId === undefined) {
    head.append(h('p', { class: 'muted' }, 'The first snapshot: it has no parent to compare with.'));
    return head;
  }
  const diff = await conn.repo.diff({ fromSnapshotId: snapshot.parentId, toSnapshotId: snapshotId });
  const { session } = await conn.session(snapshotId);
  const lines: HTMLElement[] = [];
  const add = (sign: string, kind: string, paths: readonly string[]) => {
    for (const p of paths) lines.push(h('li', {}, h('code', {}, `${sign} ${kind}  `), pathLink(snapshotId, p, kind === 'array' && sign !== '-')));
  };
  add('+', 'group', diff.newGroups);
  add('+', 'array', diff.newArrays);
  add('-', 'group', diff.deletedGroups);
  add('-', 'array', diff.deletedArrays);
  add('~', 'group', diff.updatedGroups);
  add('~', 'array', diff.updatedArrays);
  for (const m of diff.movedNodes) lines.push(h('li', {}, h('code', {}, '> moved  '), `${m.from} → ${m.to}`));
  for (const [path, chunks] of Object.entries(diff.updatedChunks)) {
    const node = await session.node(path);
    const meta = node ? nodeMetadata(node) : undefined;
    const grid = meta?.nodeType === 'array' ? meta.shape.reduce((n, len, d) => n * Math.ceil(len / Math.max(1, meta.chunkShape[d] ?? 1)), 1) : undefined;
    lines.push(h('li', {}, h('code', {}, '~ chunks '), pathLink(snapshotId, path, true), ` ${chunks.length} chunk${chunks.length === 1 ? '' : 's'} changed${grid === undefined ? '' : ` of ${grid}`}`));
  }
  head.append(
    h('p', {}, 'Against its parent ', viewLink(snapshot.parentId, { view: 'diff', ref: snapshot.parentId }, { class: 'id' }), ':'),
    lines.length > 0 ? h('ul', {}, ...lines) : h('p', { class: 'muted' }, 'no changes'));
  return head;
}

function pathLink(ref: string, path: string, isArray: boolean): HTMLElement {
  return isArray ? viewLink(path, { view: 'slice', ref, path }) : h('span', {}, path);
}
