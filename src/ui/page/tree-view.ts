// The tree of groups and arrays under a path of a version, each with its metadata and attributes
// (disclosure widgets, so the keyboard opens and closes them); arrays link to the slice viewer.
/// <reference lib="dom" />
import { nodeMetadata, type NodeInfo } from '../../engine/read-source.ts';
import { selectionText } from '../../engine/selection-text.ts';
import { defaultSelection } from '../slice-window.ts';
import { h, jsonText, viewLink } from './dom.ts';
import type { Connection } from './connection.ts';

const MAX_NODES = 2000;

export async function treeView(conn: Connection, ref: string, path: string): Promise<HTMLElement> {
  const { session, snapshotId } = await conn.session(ref);
  const root = await session.node(path);
  if (!root) return h('p', { class: 'error' }, `no node ${path} in ${ref}`);
  let budget = MAX_NODES;
  const describe = async (node: NodeInfo): Promise<HTMLElement> => {
    budget--;
    const meta = nodeMetadata(node);
    const name = node.path === '/' ? '/' : node.path.slice(node.path.lastIndexOf('/') + 1);
    const facts: HTMLElement[] = [];
    let title: HTMLElement;
    if (meta.nodeType === 'array') {
      const dims = meta.dimensionNames?.map((d, i) => d ?? `dim ${i}`) ?? meta.shape.map((_, i) => `dim ${i}`);
      title = h('span', {}, viewLink(name, { view: 'slice', ref, path: node.path, sel: selectionText(defaultSelection(meta.shape)) || '[]' }), h('span', { class: 'muted' }, ` array ${meta.dataType.name} [${meta.shape.join(', ')}]`));
      facts.push(h('p', {}, `dimensions: ${dims.join(', ')}; chunks [${meta.chunkShape.join(', ')}]; codecs: ${meta.codecs.map((c) => c.name).join(', ')}`));
    } else {
      title = h('span', {}, name, h('span', { class: 'muted' }, ' group'));
    }
    if (Object.keys(meta.attributes).length > 0) facts.push(h('pre', {}, jsonText(meta.attributes)));
    const details = h('details', { open: node.kind === 'group' }, h('summary', {}, title), ...facts);
    if (node.kind === 'group') {
      const children: HTMLElement[] = [];
      for (const child of await session.children(node.path)) {
        if (budget <= 0) {
          children.push(h('li', { class: 'muted' }, `… more than ${MAX_NODES} nodes: open a group below to see its part`));
          break;
        }
        children.push(h('li', {}, await describe(child)));
      }
      if (children.length > 0) details.append(h('ul', { class: 'tree' }, ...children));
    }
    return details;
  };
  return h('section', {}, h('h1', {}, 'Tree of ', h('code', {}, ref), ' ', h('span', { class: 'id muted' }, snapshotId)), h('ul', { class: 'tree' }, h('li', {}, await describe(root))));
}
