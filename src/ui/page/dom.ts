// The page's one way to make elements: text always goes in as text nodes and attributes through
// setAttribute, never through innerHTML, so names, attributes and messages from the repository
// are shown literally whatever they hold (`<img src=x onerror=…>` included).
/// <reference lib="dom" />
import { floeError } from '../../errors.ts';
import { viewHash, type ViewState } from '../view-state.ts';

export type Child = Node | string | number | null | undefined | false;

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Readonly<Record<string, string | number | boolean | undefined>> = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === false) continue;
    if (/^on/i.test(name)) throw floeError('INVALID_ARGUMENT', `no event handler attributes (${name}): use addEventListener`);
    el.setAttribute(name, value === true ? '' : String(value));
  }
  append(el, children);
  return el;
}

export function append(el: Node, children: readonly Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    el.appendChild(typeof child === 'string' || typeof child === 'number' ? document.createTextNode(String(child)) : child);
  }
}

/** A link to a view of the page: following it changes the address's fragment, which redraws. */
export function viewLink(text: string, state: ViewState, attrs: Readonly<Record<string, string>> = {}): HTMLAnchorElement {
  return h('a', { ...attrs, href: viewHash(state) }, text);
}

/** JSON for display: bigints (exact int64 attributes) as their digits. */
export function jsonText(value: unknown): string {
  return JSON.stringify(value, (_, v: unknown) => (typeof v === 'bigint' ? v.toString() : v), 2) ?? 'undefined';
}
