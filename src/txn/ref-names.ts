// Branch and tag names, checked when a name is created (createBranch, createTag, and the CLI
// through them). Names already stored are never checked: the reference writes names git would
// refuse (its fixture repositories carry a tag `it works!`), and Floe must still open, list and
// check those out. A refused name is INVALID_NAME with `details.rule` naming the rule broken.
//
// The rules are git's check-ref-format rules for one path component, plus the reference
// Icechunk's own: it keeps each ref under a storage key `branch.NAME/` or `tag.NAME/` and refuses
// a '/' in a name, so a name is a single component here. Together they keep a name usable as a
// storage key segment, a CLI argument and a revision expression (`main~1`, `v1^`).
import { shownValue } from '../format/arguments.ts';
import { floeError, type ErrorDetails } from '../errors.ts';
import { utf8Length } from '../platform/host.ts';

/** Longest ref name accepted, in UTF-8 bytes: a common filename limit, far above real names. */
export const MAX_REF_NAME_BYTES = 255;

/** The rule a refused branch or tag name breaks (`details.rule` of its INVALID_NAME). */
export type RefNameRule = NonNullable<ErrorDetails<'INVALID_NAME'>['rule']>;

// C0 controls, space, DEL and C1 controls: invisible or split by shells and terminals.
// eslint-disable-next-line no-control-regex
const CONTROL_OR_SPACE = /[\u0000-\u0020\u007f-\u009f]/;
// A surrogate half without its pair cannot be written as UTF-8 (it would alias U+FFFD).
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
// Characters with a meaning in git revision syntax, globs or Windows paths.
const FORBIDDEN = /[:~^\\?*[]/;

const WHY: Record<Exclude<RefNameRule, 'not-a-string'>, string> = {
  'empty': 'is empty',
  'too-long': `is longer than ${MAX_REF_NAME_BYTES} bytes of UTF-8`,
  'unpaired-surrogate': 'contains an unpaired UTF-16 surrogate (not encodable as UTF-8)',
  'control-or-space': 'contains a space, NUL or control character',
  'forbidden-character': "contains one of ':', '~', '^', '\\', '?', '*', '['",
  'slash': "contains '/' (the reference Icechunk stores each ref under one key segment)",
  'double-dot': "contains '..'",
  'leading-dash': "starts with '-' (it would read as a command-line option)",
  'leading-dot': "starts with '.'",
  'trailing-dot': "ends with '.'",
  'lock-suffix': "ends with '.lock'",
  'at-brace': "contains '@{'",
  'lone-at': "is '@'",
};

/** The first rule `name` breaks as a new branch or tag name, or null when it is acceptable. */
export function refNameProblem(name: unknown): RefNameRule | null {
  if (typeof name !== 'string') return 'not-a-string';
  if (name === '') return 'empty';
  if (utf8Length(name) > MAX_REF_NAME_BYTES) return 'too-long';
  if (LONE_SURROGATE.test(name)) return 'unpaired-surrogate';
  if (CONTROL_OR_SPACE.test(name)) return 'control-or-space';
  if (FORBIDDEN.test(name)) return 'forbidden-character';
  if (name.includes('/')) return 'slash';
  if (name.includes('..')) return 'double-dot';
  if (name.startsWith('-')) return 'leading-dash';
  if (name.startsWith('.')) return 'leading-dot';
  if (name.endsWith('.lock')) return 'lock-suffix';
  if (name.endsWith('.')) return 'trailing-dot';
  if (name.includes('@{')) return 'at-brace';
  if (name === '@') return 'lone-at';
  return null;
}

/** Throws INVALID_NAME (details.rule, details.refKind) unless `name` may be created as a `kind`. */
export function validateNewRefName(name: unknown, kind: 'branch' | 'tag'): asserts name is string {
  const rule = refNameProblem(name);
  if (rule === null) return;
  const shown = typeof name === 'string' ? JSON.stringify(name.length > 80 ? `${name.slice(0, 80)}…` : name) : shownValue(name);
  const why = rule === 'not-a-string' ? `is a ${typeof name}, not a string` : WHY[rule];
  throw floeError(
    'INVALID_NAME',
    `${shown} cannot be a new ${kind} name: it ${why}; choose a name of letters, digits and '-', '_', '.' (git's ref name rules, no '/')`,
    { details: { rule, refKind: kind } },
  );
}
