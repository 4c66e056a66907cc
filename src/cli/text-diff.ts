// A unified diff of two short texts (configuration files), line by line, for commands that show
// what they are about to change. A longest-common-subsequence table: quadratic, so callers keep
// to texts of at most MAX_DIFF_LINES lines each; beyond that the whole text is shown replaced.

export const MAX_DIFF_LINES = 2000;
const CONTEXT = 3;

type Edit = { op: ' ' | '-' | '+'; line: string; oldNo: number; newNo: number };

/** `--- a` / `+++ b` and `@@` hunks with three lines of context; '' when the texts are equal. */
export function unifiedDiff(before: string, after: string, labels: { before: string; after: string }): string {
  if (before === after) return '';
  const edits = lineEdits(lines(before), lines(after));
  const out = [`--- ${labels.before}`, `+++ ${labels.after}`];
  for (const hunk of hunksOf(edits)) out.push(hunkHeader(hunk), ...hunk.map((e) => `${e.op}${e.line}`));
  return out.join('\n') + '\n';
}

function lines(text: string): string[] {
  if (text === '') return [];
  return (text.endsWith('\n') ? text.slice(0, -1) : text).split('\n');
}

function lineEdits(a: readonly string[], b: readonly string[]): Edit[] {
  if (a.length > MAX_DIFF_LINES || b.length > MAX_DIFF_LINES) {
    return [...a.map((line, i) => edit('-', line, i, 0)), ...b.map((line, j) => edit('+', line, a.length, j))];
  }
  // common[i][j]: the longest common subsequence of a[i..] and b[j..].
  const width = b.length + 1;
  const common = new Uint32Array((a.length + 1) * width);
  const at = (i: number, j: number) => common[i * width + j] ?? 0;
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      common[i * width + j] = a[i] === b[j] ? at(i + 1, j + 1) + 1 : Math.max(at(i + 1, j), at(i, j + 1));
    }
  }
  const edits: Edit[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    const left = a[i];
    const right = b[j];
    if (left !== undefined && right !== undefined && left === right) edits.push(edit(' ', left, i++, j++));
    else if (right === undefined || (left !== undefined && at(i + 1, j) >= at(i, j + 1))) edits.push(edit('-', left ?? '', i++, j));
    else edits.push(edit('+', right, i, j++));
  }
  return edits;
}

const edit = (op: Edit['op'], line: string, oldNo: number, newNo: number): Edit => ({ op, line, oldNo, newNo });

/** Runs of changes with up to CONTEXT unchanged lines around them; runs closer than that join. */
function hunksOf(edits: readonly Edit[]): Edit[][] {
  const changed = edits.flatMap((e, k) => (e.op === ' ' ? [] : [k]));
  const hunks: Edit[][] = [];
  let start = -1;
  let end = -1;
  for (const k of changed) {
    if (start >= 0 && k - CONTEXT <= end + CONTEXT) {
      end = k;
      continue;
    }
    if (start >= 0) hunks.push(edits.slice(Math.max(0, start - CONTEXT), end + CONTEXT + 1));
    start = k;
    end = k;
  }
  if (start >= 0) hunks.push(edits.slice(Math.max(0, start - CONTEXT), end + CONTEXT + 1));
  return hunks;
}

function hunkHeader(hunk: readonly Edit[]): string {
  const [first] = hunk;
  const oldCount = hunk.filter((e) => e.op !== '+').length;
  const newCount = hunk.filter((e) => e.op !== '-').length;
  const oldStart = oldCount === 0 ? (first?.oldNo ?? 0) : (first?.oldNo ?? 0) + 1;
  const newStart = newCount === 0 ? (first?.newNo ?? 0) : (first?.newNo ?? 0) + 1;
  return `@@ -${oldStart},${oldCount} +${newStart},${newCount} @@`;
}
