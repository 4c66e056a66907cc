// The viewer page's entry (bundled into dist/viewer/viewer.js by scripts/build-viewer.mjs):
// takes the token out of the address, connects to the served repository's raw route, and draws
// the view the address's fragment names, again whenever it changes (links, back, forward).
/// <reference lib="dom" />
import { setDecodeWorkerUrl } from '../../engine/decode-worker-url.ts';
import { isFloeError } from '../../errors.ts';
import { parseViewHash, viewHash, type ViewState } from '../view-state.ts';
import { Connection, keepToken, probe } from './connection.ts';
import { h } from './dom.ts';
import { diffView, logView, refsView } from './history-views.ts';
import { sliceView } from './slice-view.ts';
import { treeView } from './tree-view.ts';

// The decode pool's worker is built beside viewer.js (this module), wherever the shared code lands.
setDecodeWorkerUrl(new URL('./decode-worker.js', import.meta.url));

const main = document.getElementById('main') as HTMLElement;
const crumbs = document.getElementById('crumbs') as HTMLElement;
let connection: Promise<Connection> | undefined;
let drawing = 0;

async function boot(): Promise<void> {
  const { state, token } = parseViewHash(location.hash);
  if (token !== undefined) {
    keepToken(token);
    history.replaceState(null, '', location.pathname + location.search + viewHash(state)); // the token leaves the address bar and history
  }
  if ((await probe()) === 'token') return askToken();
  window.addEventListener('hashchange', () => void draw());
  await draw();
}

function askToken(wrong = false): void {
  const input = h('input', { type: 'password', name: 'token', autocomplete: 'off', required: true, 'aria-describedby': 'token-help' });
  const form = h('form', { 'aria-label': 'Token' },
    h('h1', {}, 'This server needs a token'),
    h('p', { id: 'token-help' }, wrong ? 'That token was refused. ' : '', 'Give the token `floe serve` was started with (or open the link it printed). It is kept for this tab only.'),
    h('label', {}, 'Token ', input), ' ', h('button', { type: 'submit' }, 'Open'));
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    keepToken(input.value.trim());
    void probe().then((answer) => (answer === 'token' ? askToken(true) : boot()));
  });
  main.replaceChildren(form);
  input.focus();
}

async function draw(): Promise<void> {
  const turn = ++drawing;
  const { state } = parseViewHash(location.hash);
  crumbs.replaceChildren(...breadcrumbs(state));
  main.setAttribute('aria-busy', 'true');
  let view: HTMLElement;
  try {
    connection ??= Connection.open();
    const conn = await connection;
    view = await render(conn, state);
  } catch (err) {
    connection = undefined; // a failed open is tried again on the next view
    const message = isFloeError(err) ? `${err.code}: ${err.message}` : err instanceof Error ? err.message : String(err);
    view = h('section', {}, h('h1', {}, 'Could not show this'), h('p', { class: 'error', role: 'alert' }, message));
  }
  if (turn !== drawing) return; // a newer view was asked for meanwhile
  main.replaceChildren(view);
  main.removeAttribute('aria-busy');
  document.title = `Floe viewer: ${state.view}${state.view === 'refs' ? '' : ` ${state.ref}`}${state.path ? ` ${state.path}` : ''}`;
  // Focus follows the new content, so keyboard users continue from it.
  const target = main.querySelector<HTMLElement>('canvas') ?? main.querySelector<HTMLElement>('h1');
  if (target) {
    if (!target.hasAttribute('tabindex')) target.setAttribute('tabindex', '-1');
    target.focus();
  }
}

function render(conn: Connection, state: ViewState): Promise<HTMLElement> {
  switch (state.view) {
    case 'refs': return refsView(conn);
    case 'log': return logView(conn, state.ref);
    case 'diff': return diffView(conn, state.ref);
    case 'tree': return treeView(conn, state.ref, state.path ?? '/');
    case 'slice': return sliceView(conn, state);
  }
}

function breadcrumbs(state: ViewState): HTMLElement[] {
  const link = (text: string, s: ViewState) => h('a', { href: viewHash(s) }, text);
  const out = [link('refs', { view: 'refs', ref: 'main' })];
  if (state.view !== 'refs') out.push(link(`log of ${state.ref}`, { view: 'log', ref: state.ref }), link(`tree of ${state.ref}`, { view: 'tree', ref: state.ref, path: '/' }));
  return out;
}

void boot().catch((err: unknown) => main.replaceChildren(h('p', { class: 'error', role: 'alert' }, String(err))));
