// "Did you mean": the known names closest to a mistyped one (a command, an option, a branch or
// tag), by edit distance. Swapped neighbours count as one edit, as they are one slip of the
// fingers (`improt`, `mian`); case is ignored, and a name the input starts (`conf` for `config`)
// is close too. The distance allowed grows with the input's length, so a two-letter typo does
// not suggest every two-letter name.

/** Inputs longer than this get no suggestions (the distance table is length x length). */
const MAX_INPUT = 256;
/** At most this many names are compared: a repository may have many refs. */
const MAX_CANDIDATES = 100_000;

/**
 * Optimal string alignment distance: insertions, deletions, substitutions and transpositions of
 * adjacent characters each cost 1 (UTF-16 code units).
 */
export function editDistance(a: string, b: string): number {
  let before = new Array<number>(b.length + 1).fill(0);
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, (before[j - 2] ?? 0) + 1);
      current.push(best);
    }
    before = previous;
    previous = current;
  }
  return previous[b.length] ?? 0;
}

/** The largest distance at which a name still counts as a likely typo of `input`. */
function allowedDistance(input: string): number {
  return Math.min(3, Math.max(1, Math.floor(input.length / 3)));
}

/** The candidates closest to `input` (best first, ties by name), at most `limit`; [] when none is close. */
export function closestNames(input: string, candidates: Iterable<string>, limit = 3): string[] {
  if (input.length === 0 || input.length > MAX_INPUT) return [];
  const typed = input.toLowerCase();
  const scored: { name: string; distance: number }[] = [];
  let seen = 0;
  for (const name of candidates) {
    if (++seen > MAX_CANDIDATES) break;
    if (name === input || name.length > MAX_INPUT) continue;
    const known = name.toLowerCase();
    const distance = typed.length >= 3 && known.startsWith(typed) ? 1 : editDistance(typed, known);
    if (distance <= allowedDistance(input)) scored.push({ name, distance });
  }
  scored.sort((x, y) => x.distance - y.distance || (x.name < y.name ? -1 : x.name > y.name ? 1 : 0));
  return [...new Set(scored.map((s) => s.name))].slice(0, limit);
}

/** `did you mean "a"?` or `did you mean "a", "b" or "c"?` for names from closestNames; '' for none. */
export function didYouMean(suggestions: readonly string[], quote: (name: string) => string = (n) => JSON.stringify(n)): string {
  const names = suggestions.map(quote);
  const last = names.pop();
  if (last === undefined) return '';
  return `did you mean ${names.length > 0 ? `${names.join(', ')} or ${last}` : last}?`;
}
