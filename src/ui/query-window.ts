// A query in the DSL's text form, in the slice viewer: its plan says which indices each dimension
// keeps, and the viewer shows that as an ordinary selection of the `from` array (so the address
// names it, and zoom and pan work on it): one index becomes an integer (the dimension is dropped),
// one run of indices a slice (`:` for the whole dimension). A dimension the query splits into
// several runs is refused, not drawn (docs/web.md, "The viewer"): the message names the runs and
// the selection of the range that covers them, which the page can show instead. Pure: tested in Node.
import { slice, type Selection, type SelectionItem } from '../engine/selection.ts';
import { selectionText } from '../engine/selection-text.ts';
import type { QueryPlan } from '../query/plan/plan-types.ts';

export type QueryWindow =
  | { readonly path: string; readonly selection: Selection }
  /** `cover`: the selection of the range covering split runs, which the page links to. */
  | { readonly refused: string; readonly cover?: { readonly path: string; readonly selection: Selection } };

export function queryWindow(plan: QueryPlan): QueryWindow {
  const array = plan.arrays[0];
  if (!array) return { refused: 'the query reads no array' };
  const items: SelectionItem[] = [];
  const split: string[] = [];
  for (const [d, name] of array.dims.entries()) {
    const dim = plan.dims.find((p) => p.name === name);
    const runs = dim?.set ?? [{ start: 0, step: 1, count: array.shape[d] ?? 0 }];
    const [run] = runs;
    const last = runs[runs.length - 1];
    if (runs.length === 0 || run === undefined || last === undefined || run.count === 0) return { refused: `the query selects nothing along ${name}` };
    if (runs.length > 1) {
      const listed = runs.slice(0, 4).map(runText).join(', ') + (runs.length > 4 ? ', …' : '');
      split.push(`${runs.length} separate runs of ${name} (indices ${listed})`);
      items.push(slice(run.start, last.start + (last.count - 1) * last.step + 1));
      continue;
    }
    const whole = run.start === 0 && run.step === 1 && run.count === array.shape[d];
    items.push(whole ? null : run.count === 1 ? run.start : slice(run.start, run.start + run.count * run.step, run.step === 1 ? null : run.step));
  }
  if (split.length > 0) {
    return { refused: `the query selects ${split.join(' and ')}; the viewer draws one range per dimension: show the range that covers them, ${array.path}${selectionText(items)}, or narrow the query with between or whereIndex`, cover: { path: array.path, selection: items } };
  }
  return { path: array.path, selection: items };
}

type Run = { readonly start: number; readonly step: number; readonly count: number };

function runText(r: Run): string {
  if (r.count === 1) return String(r.start);
  return `${r.start}:${r.start + (r.count - 1) * r.step + 1}${r.step === 1 ? '' : `:${r.step}`}`;
}

/** Whether the selection field holds a query (builder calls or JSON) rather than `[…]`. */
export function isQueryText(text: string): boolean {
  return /^\s*(\.|\{|query\s*\()/.test(text);
}
