// What the viewer page shows, as the address's fragment, so a view can be shared by its URL:
//   #view=slice&ref=main&path=/climate/temperature&sel=[182, :, :]&cmap=viridis
// The fragment never reaches the server. `token=` is read once (the link `floe serve` prints)
// and never written back: the page keeps it in sessionStorage and takes it out of the address.
// Pure: no DOM, so it is tested in Node.

export type ViewKind = 'refs' | 'log' | 'diff' | 'tree' | 'slice';

export interface ViewState {
  readonly view: ViewKind;
  /** A branch, tag, snapshot id or ref expression (`main~1`). */
  readonly ref: string;
  /** An array or group path (tree, slice). */
  readonly path?: string | undefined;
  /** The selection's text with its brackets, `[182, :, :]` (slice). */
  readonly sel?: string | undefined;
  /** A colour map name (slice). */
  readonly cmap?: string | undefined;
}

const VIEWS: readonly ViewKind[] = ['refs', 'log', 'diff', 'tree', 'slice'];
/** Longer fields are dropped rather than carried into every link the page draws. */
const MAX_FIELD = 4096;

/** The view a fragment names (unknown or oversized fields are ignored) and the token it carried, if any. */
export function parseViewHash(hash: string): { state: ViewState; token: string | undefined } {
  const params = new URLSearchParams(hash.replace(/^#/, ''));
  const field = (name: string): string | undefined => {
    const value = params.get(name);
    return value === null || value === '' || value.length > MAX_FIELD ? undefined : value;
  };
  const view = field('view');
  const state: ViewState = {
    view: VIEWS.includes(view as ViewKind) ? (view as ViewKind) : 'refs',
    ref: field('ref') ?? 'main',
    path: field('path'),
    sel: field('sel'),
    cmap: field('cmap'),
  };
  return { state, token: field('token') };
}

/** The fragment for a view (with its '#'); fields a view does not use are left out. */
export function viewHash(state: ViewState): string {
  const params = new URLSearchParams({ view: state.view });
  if (state.view !== 'refs') params.set('ref', state.ref);
  if ((state.view === 'tree' || state.view === 'slice') && state.path !== undefined) params.set('path', state.path);
  if (state.view === 'slice') {
    if (state.sel !== undefined) params.set('sel', state.sel);
    if (state.cmap !== undefined) params.set('cmap', state.cmap);
  }
  // URLSearchParams writes spaces as '+', which it reads back as spaces: '%20' reads the same and shows better.
  return '#' + params.toString().replace(/\+/g, '%20');
}
