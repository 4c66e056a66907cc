// Rust `regex` patterns (the reference Icechunk's split conditions hold them) as JavaScript
// RegExps with the same matches. The reference tests them unanchored (`is_match`), Unicode on, and
// a pattern it cannot compile matches nothing. What the two dialects spell differently is
// translated here; what JS cannot express is reported as `unsupported` and, like an invalid
// pattern, matches nothing (docs/icechunk-format.md lists both). The facts below were checked
// against the reference 2.2.2 (test/txn/reference-splitting.test.ts).

/** A Rust pattern read: its JS equivalent, or why there is none. */
export type RustRegex =
  | { readonly kind: 'ok'; readonly regex: RegExp }
  /** Rust refuses it too (the reference then matches nothing). */
  | { readonly kind: 'invalid'; readonly reason: string }
  /** Valid Rust that Floe cannot translate (it matches nothing in Floe). */
  | { readonly kind: 'unsupported'; readonly reason: string };

class Refusal {
  constructor(readonly kind: 'invalid' | 'unsupported', readonly reason: string) {}
}
const invalid = (reason: string) => new Refusal('invalid', reason);
const unsupported = (reason: string) => new Refusal('unsupported', reason);

// Rust's Unicode \w (UTS #18: Alphabetic, marks, decimal digits, connector punctuation, joiners);
// JS's \w, \d, \s and \b are ASCII only, even with the u flag.
const WORD = '\\p{Alphabetic}\\p{M}\\p{Nd}\\p{Pc}\\p{Join_Control}';
const W = `[${WORD}]`;
const PERL_CLASSES: Record<string, string> = { d: '\\p{Nd}', D: '\\P{Nd}', s: '\\p{White_Space}', S: '\\P{White_Space}' };
const WORD_ASSERTIONS: Record<string, string> = {
  start: `(?<!${W})(?=${W})`,
  end: `(?<=${W})(?!${W})`,
  'start-half': `(?<!${W})`,
  'end-half': `(?!${W})`,
};
const ESCAPED_CONTROLS: Record<string, string> = { n: '\\n', t: '\\t', r: '\\r', f: '\\f', v: '\\v', a: '\\u{7}' };
// Rust's ASCII classes, `[[:alpha:]]`.
const POSIX_CLASSES: Record<string, string> = {
  alnum: '0-9A-Za-z', alpha: 'A-Za-z', ascii: '\\u{0}-\\u{7F}', blank: '\\t ', cntrl: '\\u{0}-\\u{1F}\\u{7F}', digit: '0-9',
  graph: '!-~', lower: 'a-z', print: ' -~', punct: '!-/:-@\\[-`{-~', space: '\\t\\n\\v\\f\\r ', upper: 'A-Z',
  word: '0-9A-Za-z_', xdigit: '0-9A-Fa-f',
};
const HEX_DIGITS: Record<string, number> = { x: 2, u: 4, U: 8 };
const SPACE = /^\p{White_Space}$/u;
const CAPTURE_NAME = /^[_\p{Alphabetic}][_.[\]\p{Alphabetic}\p{N}]*$/u;
const PROPERTY_NAME = /^[A-Za-z0-9_ =:.!-]+$/;

/** A literal code point, safe in and out of a JS `u`-mode class. */
function literal(c: string): string {
  return /^[A-Za-z0-9_ ]$/.test(c) ? c : `\\u{${(c.codePointAt(0) ?? 0).toString(16)}}`;
}

/** Rust lets every ASCII character but letters, digits, `<` and `>` be escaped to itself. */
function isEscapableLiteral(c: string): boolean {
  return c.length === 1 && c.charCodeAt(0) < 128 && !/[0-9A-Za-z<>]/.test(c);
}

function isJsProperty(body: string): boolean {
  try {
    new RegExp(`\\p{${body}}`, 'u');
    return true;
  } catch {
    return false;
  }
}

interface Flags {
  i: boolean;
  m: boolean;
  s: boolean;
  x: boolean;
}

class Translator {
  private readonly chars: string[];
  private pos = 0;
  private out = '';
  /** Where the last repeatable item starts in `out` (-1: none). */
  private lastAtom = -1;
  /** Whether anything but flag groups has been read (a later `i` flag can no longer be global). */
  private started = false;
  private flags: Flags = { i: false, m: false, s: false, x: false };
  private readonly groups: { flags: Flags; start: number }[] = [];
  private readonly names = new Set<string>();

  constructor(pattern: string) {
    this.chars = Array.from(pattern);
  }

  translate(): { source: string; flags: string } {
    while (this.pos < this.chars.length) this.token();
    if (this.groups.length > 0) throw invalid('a group is not closed');
    return { source: this.out, flags: this.flags.i ? 'iu' : 'u' };
  }

  private peek(): string | undefined {
    return this.chars[this.pos];
  }

  private next(): string | undefined {
    return this.chars[this.pos++];
  }

  /** Steps over `c` if it comes next. */
  private take(c: string): boolean {
    if (this.peek() !== c) return false;
    this.pos++;
    return true;
  }

  private token(): void {
    if (this.flags.x && this.skipVerbose()) return;
    const c = this.next() ?? '';
    switch (c) {
      case '(': return this.openGroup();
      case ')': return this.closeGroup();
      case '|':
        this.out += '|';
        this.lastAtom = -1;
        this.started = true;
        return;
      case '*': case '+': case '?': return this.repeat(c);
      case '{': return this.repeat(this.countedRepetition());
      case '[': return this.atom(this.charClass());
      case '\\': return this.atom(this.escape(false));
      // Rust's `.` misses only \n (JS's also \r, U+2028, U+2029); its multi-line ^ and $ see only \n.
      case '.': return this.atom(this.flags.s ? '[\\s\\S]' : '[^\\n]');
      case '^': return this.atom(this.flags.m ? '(?<![^\\n])' : '^');
      case '$': return this.atom(this.flags.m ? '(?![^\\n])' : '$');
      default: return this.atom(literal(c));
    }
  }

  /** Verbose mode: whitespace and `#` comments are not part of the pattern. */
  private skipVerbose(): boolean {
    const c = this.peek() ?? '';
    if (SPACE.test(c)) {
      this.pos++;
      return true;
    }
    if (c !== '#') return false;
    while (this.pos < this.chars.length && this.next() !== '\n');
    return true;
  }

  private atom(source: string): void {
    this.lastAtom = this.out.length;
    this.out += source;
    this.started = true;
  }

  /** Rust repeats anything, a repetition or an assertion too (`a**`, `^*`): wrap it in a group for JS. */
  private repeat(quantifier: string): void {
    if (this.lastAtom < 0) throw invalid(`the repetition ${quantifier} has nothing to repeat`);
    const lazy = this.take('?') ? '?' : '';
    this.out = `${this.out.slice(0, this.lastAtom)}(?:${this.out.slice(this.lastAtom)})${quantifier}${lazy}`;
  }

  /** `{n}`, `{n,}`, `{n,m}`, spaces allowed inside; `{,m}` is not Rust's (2.2.2 refuses it). */
  private countedRepetition(): string {
    const number = (): string => {
      this.skipSpaces();
      let digits = '';
      while (/^[0-9]$/.test(this.peek() ?? '')) digits += this.next();
      this.skipSpaces();
      return digits;
    };
    const min = number();
    if (min === '') throw invalid('a counted repetition needs a minimum: {n}, {n,} or {n,m}');
    let max: string | undefined = min;
    if (this.take(',')) max = number() || undefined;
    if (this.next() !== '}') throw invalid('a counted repetition is not closed');
    if (max !== undefined && Number(max) < Number(min)) throw invalid(`the repetition {${min},${max}} has its bounds the wrong way round`);
    return max === min ? `{${min}}` : `{${min},${max ?? ''}}`;
  }

  private skipSpaces(): void {
    while (SPACE.test(this.peek() ?? '')) this.pos++;
  }

  private openGroup(): void {
    if (this.peek() !== '?') return this.pushGroup();
    this.pos++;
    const c = this.next();
    if (c === ':') return this.pushGroup();
    if (c === 'P' && this.take('<')) return this.namedGroup();
    if (c === '<' && this.peek() !== '=' && this.peek() !== '!') return this.namedGroup();
    if (c === '=' || c === '!' || c === '<') throw invalid('look-around is not supported by Rust regex');
    if (c === 'P') throw invalid('backreferences are not supported by Rust regex');
    this.pos--;
    this.flagGroup();
  }

  /** Capture names do not change what matches: checked as Rust does, then dropped. */
  private namedGroup(): void {
    let name = '';
    for (let c = this.next(); c !== '>'; c = this.next()) {
      if (c === undefined) throw invalid('a capture group name is not closed');
      name += c;
    }
    if (!CAPTURE_NAME.test(name)) throw invalid(`"${name}" is not a valid capture group name`);
    if (this.names.has(name)) throw invalid(`the capture group name "${name}" is used twice`);
    this.names.add(name);
    this.pushGroup();
  }

  private pushGroup(): void {
    this.groups.push({ flags: { ...this.flags }, start: this.out.length });
    this.out += '(?:';
    this.lastAtom = -1;
    this.started = true;
  }

  private closeGroup(): void {
    const group = this.groups.pop();
    if (!group) throw invalid('a group is closed that was not opened');
    this.out += ')';
    this.flags = group.flags;
    this.lastAtom = group.start;
  }

  /** `(?flags)` for the rest of the group, `(?flags:...)` for its own group. */
  private flagGroup(): void {
    const scoped = { ...this.flags };
    const seen = new Set<string>();
    let on = true;
    let last = '';
    for (let c = this.next(); c !== ')' && c !== ':'; c = this.next()) {
      if (c === undefined) throw invalid('a flag group is not closed');
      if (c === '-') {
        if (!on) throw invalid('a flag group negates twice');
        on = false;
      } else {
        if (seen.has(c)) throw invalid(`the flag ${c} is repeated`);
        seen.add(c);
        this.setFlag(scoped, c, on);
      }
      last = c;
    }
    if (seen.size === 0 || last === '-') throw invalid('a flag group sets no flag');
    const isScoped = this.chars[this.pos - 1] === ':';
    if (scoped.i !== this.flags.i && (isScoped || this.started || this.groups.length > 0)) {
      throw unsupported('the case-insensitive flag i only where it starts the pattern, as (?i)');
    }
    if (isScoped) this.pushGroup();
    this.flags = scoped;
  }

  private setFlag(flags: Flags, flag: string, on: boolean): void {
    switch (flag) {
      case 'i': case 'm': case 's': case 'x':
        flags[flag] = on;
        return;
      case 'U': return; // swaps greediness, which does not change whether there is a match
      case 'u':
        if (!on) throw unsupported('(?-u): matching bytes rather than Unicode text');
        return;
      case 'R':
        if (on) throw unsupported('(?R): CRLF line terminators');
        return;
      default:
        throw invalid(`the flag ${flag} is not one of imsUuxR`);
    }
  }

  private escape(inClass: boolean): string {
    const c = this.next();
    if (c === undefined) throw invalid('the pattern ends with a lone backslash');
    const perl = PERL_CLASSES[c];
    if (perl !== undefined) return perl;
    const control = ESCAPED_CONTROLS[c];
    if (control !== undefined) return control;
    if (c === 'w') return inClass ? WORD : W;
    if (c === 'W') {
      if (inClass) throw unsupported('\\W inside a character class');
      return `[^${WORD}]`;
    }
    if (c === 'p' || c === 'P') return this.unicodeClass(c === 'P');
    if (c in HEX_DIGITS) return literal(this.hexEscape(c));
    if (isEscapableLiteral(c)) return literal(c);
    if (!inClass) {
      const assertion = this.assertion(c);
      if (assertion !== undefined) return assertion;
    }
    throw invalid(`\\${c} is not an escape Rust regex knows${inClass ? ' inside a class' : ''}`);
  }

  private assertion(c: string): string | undefined {
    switch (c) {
      case 'A': return '(?<![\\s\\S])';
      case 'z': return '(?![\\s\\S])';
      case '<': return WORD_ASSERTIONS.start;
      case '>': return WORD_ASSERTIONS.end;
      case 'b': {
        if (this.peek() !== '{') return `(?:${WORD_ASSERTIONS.end}|${WORD_ASSERTIONS.start})`;
        const kind = this.braced('a word boundary kind');
        const found = WORD_ASSERTIONS[kind];
        if (found === undefined) throw invalid(`\\b{${kind}} is not a word boundary Rust regex knows`);
        return found;
      }
      case 'B': return `(?:(?<=${W})(?=${W})|(?<!${W})(?!${W}))`;
      default: return undefined;
    }
  }

  /** The text of `{...}` at the cursor. */
  private braced(what: string): string {
    this.pos++;
    let body = '';
    for (let c = this.next(); c !== '}'; c = this.next()) {
      if (c === undefined) throw invalid(`${what} is not closed`);
      body += c;
    }
    return body;
  }

  /** `\xHH`, `\uHHHH`, `\UHHHHHHHH`, or any of them braced: `\x{1F600}`. */
  private hexEscape(kind: string): string {
    const braced = this.peek() === '{';
    let digits = '';
    if (braced) digits = this.braced('a hex escape');
    else for (let n = 0; n < (HEX_DIGITS[kind] ?? 0); n++) digits += this.next() ?? '';
    const length = braced ? '{1,8}' : `{${HEX_DIGITS[kind] ?? 0}}`;
    const value = new RegExp(`^[0-9A-Fa-f]${length}$`).test(digits) ? parseInt(digits, 16) : NaN;
    if (!(value <= 0x10ffff) || (value >= 0xd800 && value <= 0xdfff)) throw invalid(`\\${kind}${digits} is not a Unicode scalar value`);
    return String.fromCodePoint(value);
  }

  /** `\pL`, `\p{Greek}` (a bare name is a script, as in Rust), `\p{sc=Greek}`, `\p{sc!=Greek}`. */
  private unicodeClass(negated: boolean): string {
    let body = this.peek() === '{' ? this.braced('a Unicode class') : (this.next() ?? '');
    if (!PROPERTY_NAME.test(body)) throw invalid(`\\p{${body}} is not a Unicode class Rust regex knows`);
    if (body.includes('!=')) {
      negated = !negated;
      body = body.replace('!=', '=');
    }
    body = body.replace(':', '=');
    const name = [body, `Script=${body}`].find(isJsProperty);
    if (name === undefined) throw unsupported(`the Unicode class \\p{${body}} (Floe takes JS's names: L, Letter, Greek, Script=Greek)`);
    return `\\${negated ? 'P' : 'p'}{${name}}`;
  }

  private charClass(): string {
    const negated = this.take('^');
    return `[${negated ? '^' : ''}${this.classItems()}]`;
  }

  /** A class's items up to its closing `]`; nested classes are unions, flattened into it. */
  private classItems(): string {
    let body = '';
    for (let first = true; ; first = false) {
      if (this.flags.x) this.skipSpaces();
      const c = this.next();
      if (c === undefined) throw invalid('a character class is not closed');
      if (c === ']') {
        if (!first) return body;
        body += literal(c); // `[]a]`: a leading ] is a literal
      } else if (c === '[') {
        body += this.posixClass() ?? this.nestedClass();
      } else if ((c === '&' || c === '-' || c === '~') && this.peek() === c) {
        throw unsupported(`the class operation ${c}${c} (intersection, difference, symmetric difference)`);
      } else if (c === '\\') {
        body += this.escape(true);
      } else {
        body += c === '-' ? '-' : literal(c);
      }
    }
  }

  private nestedClass(): string {
    if (this.peek() === '^') throw unsupported('a negated class inside a class');
    return this.classItems();
  }

  /** `[:alpha:]` after a class's `[`; an unknown name leaves a plain nested class, as in Rust. */
  private posixClass(): string | undefined {
    const match = /^:(\^?)([a-z]+):\]/.exec(this.chars.slice(this.pos, this.pos + 12).join(''));
    const ranges = match ? POSIX_CLASSES[match[2] ?? ''] : undefined;
    if (!match || ranges === undefined) return undefined;
    if (match[1]) throw unsupported(`the negated ASCII class [:^${match[2]}:] inside a class`);
    this.pos += match[0].length;
    return ranges;
  }
}

function translate(pattern: string): RustRegex {
  let js: { source: string; flags: string };
  try {
    js = new Translator(pattern).translate();
  } catch (err) {
    if (err instanceof Refusal) return { kind: err.kind, reason: err.reason };
    throw err;
  }
  try {
    return { kind: 'ok', regex: new RegExp(js.source, js.flags) };
  } catch (err) {
    // A range or a name that JS spells otherwise, or one that neither accepts (`[z-a]`).
    if (err instanceof SyntaxError) return { kind: 'unsupported', reason: `JS cannot compile it (${err.message})` };
    throw err;
  }
}

const CACHE_LIMIT = 512;
const cache = new Map<string, RustRegex>();

/** `pattern` read as Rust's regex crate reads it (cached: commits test the same few patterns per array). */
export function rustRegex(pattern: string): RustRegex {
  let read = cache.get(pattern);
  if (read === undefined) {
    if (cache.size >= CACHE_LIMIT) cache.clear();
    read = translate(pattern);
    cache.set(pattern, read);
  }
  return read;
}

/** Rust's `Regex::new(pattern).map(|r| r.is_match(text)).unwrap_or(false)`. */
export function rustRegexMatches(pattern: string, text: string): boolean {
  const read = rustRegex(pattern);
  return read.kind === 'ok' && read.regex.test(text);
}
