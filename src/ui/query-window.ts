// A query in the DSL's text form, in the slice viewer: its plan says which indices each dimension
// keeps, and the viewer shows that as an ordinary selection of the `from` array (so the address
// names it, and zoom and pan work on it): one index becomes an integer (the dimension is dropped),
// one run of indices a slice (`:` for the whole dimension). A dimension the query splits into several runs cannot be one
// selection: the page says so. Pure: tested in Node.
import { slice, type Selection, type SelectionItem } from '../engine/selection.ts';
import type { QueryPlan } from '../query/plan/plan-types.ts';

export type QueryWindow = { readonly path: string; readonly selection: Selection } | { readonly refused: string };

export function queryWindow(plan: QueryPlan): QueryWindow {
  const array = plan.arrays[0];
  if (!array) return { refused: 'the query reads no array' };
  const items: SelectionItem[] = [];
  for (const [d, name] of array.dims.entries()) {
    const dim = plan.dims.find((p) => p.name === name);
    const runs = dim?.set ?? [{ start: 0, step: 1, count: array.shape[d] ?? 0 }];
    const [run] = runs;
    if (runs.length === 0 || run === undefined || run.count === 0) return { refused: `the query selects nothing along ${name}` };
    if (runs.length > 1) return { refused: `the query selects ${runs.length} separate runs of ${name}; the viewer shows one range per dimension (use between, or whereIndex)` };
    const whole = run.start === 0 && run.step === 1 && run.count === array.shape[d];
    items.push(whole ? null : run.count === 1 ? run.start : slice(run.start, run.start + run.count * run.step, run.step === 1 ? null : run.step));
  }
  return { path: array.path, selection: items };
}

/** Whether the selection field holds a query (builder calls or JSON) rather than `[…]`. */
export function isQueryText(text: string): boolean {
  return /^\s*(\.|\{|query\s*\()/.test(text);
}
