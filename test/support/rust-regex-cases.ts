// Rust regex patterns with a text each and whether Rust's `is_match` holds: written by hand from
// the regex crate's syntax and checked against the reference Icechunk 2.2.2, which the cross test
// (test/txn/reference-splitting.test.ts) does again on every run. `floe` marks the valid Rust that
// Floe does not translate: it matches nothing in Floe (docs/icechunk-format.md).

export interface RustRegexCase {
  pattern: string;
  text: string;
  /** Whether Rust matches `pattern` anywhere in `text` (false when Rust refuses the pattern). */
  rust: boolean;
  /** How Floe reads the pattern when it does not translate it as Rust: 'invalid' (Rust refuses it too) or 'unsupported'. */
  floe?: 'invalid' | 'unsupported';
}

const c = (pattern: string, text: string, rust: boolean, floe?: 'invalid' | 'unsupported'): RustRegexCase =>
  floe === undefined ? { pattern, text, rust } : { pattern, text, rust, floe };

export const RUST_REGEX_CASES: readonly RustRegexCase[] = [
  // Unanchored, as is_match: anywhere in the text.
  c('temp', 'air_temperature', true), c('^temp', 'air_temperature', false), c('ture$', 'air_temperature', true),
  c('ab', 'AB', false), c('', 'x', true), c('a|', 'zz', true), c('()', 'x', true),
  // Flags: a leading (?i); s, m, x and U anywhere, scoped or not.
  c('(?i)ab', 'xAB', true), c('(?i)É', 'é', true), c('(?i)ß', 'ẞ', true), c('(?i)ss', 'ß', false),
  c('(?i)\\p{Lu}', 'a', true), c('(?i)[[:upper:]]', 'a', true), c('(?i)[k]', '\u212a', true),
  c('^.$', '\n', false), c('^.$', '\r', true), c('^.$', '😀', true), c('(?s).', '\n', true), c('(?s:.)', '\n', true),
  c('a$', 'a\n', false), c('(?m)a$', 'a\n', true), c('(?m)a$', 'a\r', false), c('(?m)^a', 'b\ra', false), c('(?m:^a)', 'b\na', true),
  c('(?x) a b # comment', 'ab', true), c('(?x)a\\ b', 'a b', true), c('(?x)[a b]', ' ', false), c('(?x:a b)', 'ab', true), c('(?x)a#c\nb', 'ab', true),
  c('(?U)a+', 'a', true),
  c('a(?i)b', 'aB', true, 'unsupported'), c('(?i:A)b', 'ab', true, 'unsupported'), c('(?i)(?-i)a', 'A', false), c('a(?-i)', 'a', true),
  c('(?-u)a', 'a', true, 'unsupported'),
  c('(?ii)a', 'a', false, 'invalid'), c('(?)a', 'a', false, 'invalid'), c('(?-)a', 'a', false, 'invalid'), c('(?i-)a', 'a', false, 'invalid'),
  // Unicode classes and word boundaries (JS's own are ASCII).
  c('\\w', 'é', true), c('^\\d$', '٣', true), c('[^\\d]', '٣', false), c('^\\s$', '\u0085', true), c('^[\\s]$', '\u00a0', true),
  c('\\bé', 'é', true), c('\\Ba', 'ba', true), c('\\<a', 'ba', false), c('\\<a', 'b a', true), c('\\>', 'x', true),
  c('x\\b{end}', 'x', true), c('\\b{start}a', 'a', true),
  c('\\p{Greek}', 'α', true), c('^\\p{Greek}$', '\u0342', false), c('^\\p{scx=Greek}$', '\u0342', true), c('\\pL', 'x', true), c('\\P{L}', '1', true),
  c('\\p{sc!=Greek}', 'a', true), c('\\p{sc!=Greek}', 'α', false), c('\\p{sc:Greek}', 'α', true), c('\\P{sc!=Greek}', 'α', true), c('(?i)\\x{212A}', 'k', true),
  c('\\p{letter}', 'x', true, 'unsupported'), c('[\\W]', '-', true, 'unsupported'),
  // Escapes.
  c('\\x41', 'A', true), c('\\x{41}', 'A', true), c('\\u{41}', 'A', true), c('\\U{41}', 'A', true), c('\\u0041', 'A', true),
  c('\\a', '\u0007', true), c('\\%', '%', true), c('\\/', '/', true), c('\\-', '-', true), c('\\_', '_', true), c('\\ ', 'a b', true),
  c('\\xA', 'A', false, 'invalid'), c('\\u41', 'A', false, 'invalid'), c('\\x{D800}', 'a', false, 'invalid'), c('\\e', 'e', false, 'invalid'),
  c('\\0', '\u0000', false, 'invalid'), c('\\Q', 'Q', false, 'invalid'), c('\\k<n>', 'k', false, 'invalid'),
  // Groups: names checked and dropped; no look-around, no backreferences.
  c('(?P<n>a)', 'a', true), c('(?<n>a)', 'a', true), c('(?<n.x>a)', 'a', true),
  c('(?<>a)', 'a', false, 'invalid'), c('(?<1a>a)', 'a', false, 'invalid'), c('(?P<a>x)(?P<a>y)', 'xy', false, 'invalid'),
  c('(?=a)', 'a', false, 'invalid'), c('(?<!a)b', 'b', false, 'invalid'), c('(a)\\1', 'aa', false, 'invalid'), c('(a', 'a', false, 'invalid'), c('a)', 'a', false, 'invalid'),
  // Repetition: of anything, stacked; spaces inside braces; no {,n}.
  c('a**', 'a', true), c('^*a', 'a', true), c('\\b*', 'a', true), c('(?:)*', 'a', true), c('a{1,2}{2}', 'aaaa', true),
  c('a{ 2 }', 'aa', true), c('a{2 ,}', 'aa', true), c('a{0}', 'b', true), c('a??', 'a', true), c('a*??', 'a', true),
  c('a{,3}', 'a{,3}', false, 'invalid'), c('^a{,3}$', 'aa', false, 'invalid'), c('{', '{', false, 'invalid'), c('a{', 'a{', false, 'invalid'),
  c('a{3,2}', 'aaa', false, 'invalid'),
  // Literals JS's u mode would refuse unescaped.
  c('a}', 'a}', true), c('a]', 'a]', true), c('a#b', 'a#b', true),
  // Classes: a leading ], nested unions, ASCII classes (an unknown name is a nested class).
  c('[]a]', ']', true), c('[^]a]', 'b', true), c('[a-]', '-', true), c('[\\-]', '-', true), c('[a[bc]]', 'b', true),
  c('[[:alpha:]]', 'x', true), c('[[:alpha:]]', '1', false), c('[[:word:]]', '_', true), c('[[:foo:]]', 'f', true),
  c('[\\d]', '5', true), c('[\\x{41}-\\x{43}]', 'B', true),
  c('[\\b]', '\b', false, 'invalid'), c('[\\A]', 'A', false, 'invalid'), c('[z-a]', 'a', false, 'unsupported'), c('[a-\\d]', 'a', false, 'unsupported'),
  c('[a-z&&[^aeiou]]', 'b', true, 'unsupported'), c('[a-z--b]', 'b', false, 'unsupported'), c('[a~~b]', 'a', true, 'unsupported'),
  c('[[:^alpha:]a]', 'a', true, 'unsupported'),
];
