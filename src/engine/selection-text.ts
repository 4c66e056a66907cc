// A selection as people type it, `[182, :, 10:20:2]`'s inside (NumPy's basic indexing: integers,
// `start:stop:step` with any part omitted, one `...`), and back: the CLI's targets, `floe plot`'s
// titles and the viewer page's URLs share it. Pure: no I/O.
import { floeError } from '../errors.ts';
import { slice, type Selection, type SelectionItem } from './selection.ts';

/** The text between the brackets as a selection; INVALID_SELECTION naming the bad item otherwise. */
export function parseSelectionText(text: string): Selection {
  if (text.trim() === '') return [];
  return text.split(',').map((part): SelectionItem => {
    const item = part.trim();
    if (item === '...') return '...';
    const pieces = item.split(':');
    if (pieces.length === 1) return integer(item, text);
    if (pieces.length > 3) throw floeError('INVALID_SELECTION', `bad slice ${JSON.stringify(item)} in [${text}]: use start:stop:step`);
    const [start, stop, step] = pieces.map((p) => (p.trim() === '' ? null : integer(p.trim(), text)));
    if (start === null && stop === null && (step ?? null) === null) return null;
    return slice(start ?? null, stop ?? null, step ?? null);
  });
}

function integer(item: string, whole: string): number {
  if (!/^-?\d+$/.test(item)) throw floeError('INVALID_SELECTION', `bad index ${JSON.stringify(item)} in [${whole}]: use integers, start:stop:step or ...`);
  return Number(item);
}

/** The selection as typed: `[182]`, `[:, 90, ::2]`; empty for the whole array. */
export function selectionText(selection: Selection | undefined): string {
  if (!selection || selection.length === 0) return '';
  const item = (s: SelectionItem): string => {
    if (s === null) return ':';
    if (s === '...' || typeof s === 'number') return String(s);
    return `${s.start ?? ''}:${s.stop ?? ''}${s.step !== null ? `:${s.step}` : ''}`;
  };
  return `[${selection.map(item).join(', ')}]`;
}
