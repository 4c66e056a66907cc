// Shell transcripts in Markdown, as docs/cli.md shows them: a ```console block of `$ command`
// lines, each followed by the output it prints. Documented output may hold placeholders for what
// changes from run to run: <ID> a snapshot or manifest id, <DATE> an ISO date-time, <N> a number,
// <...> any text within a line, and a line of just `...` for any number of lines (none included).

export interface TranscriptCommand {
  readonly command: string;
  readonly output: readonly string[];
  /** 1-based line of the `$` in the Markdown file, for failure messages. */
  readonly line: number;
}

export interface TranscriptBlock {
  readonly line: number;
  readonly commands: readonly TranscriptCommand[];
}

/** Every ```console block of a Markdown text, split into commands and their documented output. */
export function transcriptBlocks(markdown: string): TranscriptBlock[] {
  const lines = markdown.split('\n');
  const blocks: TranscriptBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (lines[i]?.trim() !== '```console') continue;
    const start = i + 1;
    const commands: { command: string; output: string[]; line: number }[] = [];
    for (i = start; i < lines.length && lines[i]?.trim() !== '```'; i++) {
      const text = lines[i] ?? '';
      if (text.startsWith('$ ')) commands.push({ command: text.slice(2), output: [], line: i + 1 });
      else commands[commands.length - 1]?.output.push(text);
    }
    blocks.push({ line: start, commands });
  }
  return blocks;
}

const PLACEHOLDERS: Readonly<Record<string, string>> = {
  '<ID>': '[0-9A-HJKMNP-TV-Z]{20}',
  '<DATE>': '\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d+)?Z',
  '<N>': '-?\\d+(\\.\\d+)?',
  '<...>': '.*',
};

/** A documented output line as a regular expression: literal text, placeholders as patterns. */
export function linePattern(documented: string): RegExp {
  const parts = documented.split(/(<ID>|<DATE>|<N>|<\.\.\.>)/);
  const source = parts.map((p) => PLACEHOLDERS[p] ?? p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('');
  return new RegExp(`^${source}$`);
}

/** Whether the actual lines match the documented ones (`...` lines match any run of lines). */
export function matchesTranscript(documented: readonly string[], actual: readonly string[]): boolean {
  const patterns = documented.map((d) => (d === '...' ? undefined : linePattern(d)));
  // Memoised: position in the pattern x position in the output; each pair is decided once.
  const seen = new Map<number, boolean>();
  const match = (p: number, a: number): boolean => {
    const key = p * (actual.length + 1) + a;
    const known = seen.get(key);
    if (known !== undefined) return known;
    let result: boolean;
    if (p === patterns.length) result = a === actual.length;
    else {
      const pattern = patterns[p];
      result = pattern === undefined
        ? match(p + 1, a) || (a < actual.length && match(p, a + 1))
        : a < actual.length && pattern.test(actual[a] ?? '') && match(p + 1, a + 1);
    }
    seen.set(key, result);
    return result;
  };
  return match(0, 0);
}
