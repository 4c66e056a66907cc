// Ref expressions: naming a snapshot the way git names a revision (docs/refs.md). A base — a
// branch, a tag, a full snapshot id, or a unique prefix of one (at least 4 characters, any case) —
// followed by any number of steps, applied left to right:
//   ~N        the N-th ancestor (`~` alone is `~1`);
//   ^N        the N-th parent: `^` and `^1` the parent, `^0` the snapshot itself. An Icechunk
//             snapshot has one parent, so `^2` and beyond name nothing (NOT_FOUND), as in git for
//             a commit that is not a merge;
//   @{DATE}   the newest snapshot, from this one back through its ancestors, written at or before
//             DATE (a strict ISO 8601 date, src/format/iso-date.ts). Git reads `main@{DATE}` from
//             the branch's reflog, where it names where main pointed then; Icechunk keeps no
//             reflog, so this is the history as it is now: it differs from git's only after a
//             branch was reset. A snapshot's time is compared as `floe log` shows it (ms).
// A name that exists as a branch or tag is taken whole first, so a stored name holding `~`, `^` or
// `@{` (the reference writes names git would refuse) still resolves. Branches win over tags, and
// both over id prefixes. Ancestry walks the history index (one array read a step).
import { floeError } from '../errors.ts';
import { closestNames, didYouMean } from '../format/did-you-mean.ts';
import { historyIndex, type HistoryIndex } from '../format/icechunk/history-index.ts';
import { idToString, parseSnapshotId, type SnapshotId } from '../format/icechunk/ids.ts';
import type { RepoInfo, SnapshotInfo } from '../format/icechunk/repo-info.ts';
import { parseIsoDate } from '../format/iso-date.ts';

/** One step after the base of a ref expression. */
export type RefStep =
  | { readonly kind: 'ancestor'; readonly count: number }
  | { readonly kind: 'parent'; readonly number: number }
  | { readonly kind: 'as-of'; readonly date: Date };

export interface RefExpression {
  readonly base: string;
  readonly steps: readonly RefStep[];
}

/** The snapshot a ref expression names ({@link Repository.resolve}). */
export interface ResolvedRef {
  /** The expression as given. */
  readonly expression: string;
  /** The snapshot it names (base32). */
  readonly snapshotId: string;
  /**
   * How to open it: `{ branch }` or `{ tag }` when the expression is exactly that name (a
   * session then knows its branch), otherwise `{ snapshotId }`.
   */
  readonly version: { branch: string } | { tag: string } | { snapshotId: string };
  /**
   * True when the expression names this snapshot forever: a full snapshot id. Branches move,
   * prefixes can become ambiguous, and expiry re-parents snapshots, so nothing else is.
   */
  readonly fixed: boolean;
}

/** What resolution reads: the repo info, and whether a snapshot missing from its list exists as an object. */
export interface RefResolutionSource {
  readonly info: RepoInfo;
  snapshotExists(id: SnapshotId): Promise<boolean>;
}

/** Shortest snapshot id prefix accepted, as git's shortest abbreviation. */
export const MIN_ID_PREFIX = 4;
const ID_LENGTH = 20;
const BASE32 = /^[0-9A-HJKMNP-TV-Z]+$/;
/** Candidates an AMBIGUOUS message shows (details.candidates has them all). */
const SHOWN_CANDIDATES = 8;

const syntaxError = (text: string, why: string) =>
  floeError('INVALID_ARGUMENT', `bad ref expression ${JSON.stringify(text)}: ${why}; write REF, REF~N, REF^, REF@{2026-11-01} or REF@{2026-11-01T12:00:00Z}`, { where: text });

/**
 * Splits `text` into its base and steps; INVALID_ARGUMENT for bad syntax or an impossible date.
 * The base ends at the first `~`, `^` or `@{`, or, when `isName` says so, at a later one: a
 * stored ref name may hold those characters (`odd~1~2` is two back from a branch `odd~1`).
 */
export function parseRefExpression(text: string, isName: (base: string) => boolean = () => false): RefExpression {
  const starts = [...text.matchAll(/[~^]|@\{/g)].map((m) => m.index);
  const named = starts.findLast((at) => at > 0 && isName(text.slice(0, at)));
  const start = named ?? starts[0] ?? text.length;
  const base = text.slice(0, start);
  if (base === '') throw syntaxError(text, 'it starts with no branch, tag or snapshot id');
  return { base, steps: parseSteps(text, start) };
}

function parseSteps(text: string, from: number): RefStep[] {
  const steps: RefStep[] = [];
  let at = from;
  while (at < text.length) {
    const step = /^([~^])(\d*)|^@\{([^}]*)\}/.exec(text.slice(at));
    if (!step) throw syntaxError(text, `unexpected ${JSON.stringify(text.slice(at))}`);
    at += step[0].length;
    const [, operator, digits, date] = step;
    if (date !== undefined) steps.push({ kind: 'as-of', date: asOfDate(text, date) });
    else steps.push(countedStep(text, operator, digits ?? ''));
  }
  return steps;
}

function countedStep(text: string, operator: string | undefined, digits: string): RefStep {
  if (digits.length > 9) throw syntaxError(text, `${operator}${digits} is too far back`);
  const count = digits === '' ? 1 : Number(digits);
  return operator === '~' ? { kind: 'ancestor', count } : { kind: 'parent', number: count };
}

function asOfDate(text: string, inside: string): Date {
  if (/^-?\d+$/.test(inside.trim()) || inside === 'u' || inside === 'upstream' || inside === 'push') {
    throw syntaxError(text, `@{${inside}} reads git's reflog, which Icechunk does not keep; name a date (REF@{2026-11-01}) or count back (REF~N)`);
  }
  return parseIsoDate(inside, `the date in ${text}`);
}

/** Resolves a ref expression against a repository's history. */
export async function resolveRefExpression(text: string, source: RefResolutionSource): Promise<ResolvedRef> {
  if (typeof text !== 'string' || text === '') throw floeError('INVALID_ARGUMENT', 'a ref expression is a non-empty string such as main, v1.0, main~2 or 3KJ9');
  const { info } = source;
  const whole = refNamed(info, text);
  if (whole) return { expression: text, snapshotId: idToString(whole.id), version: whole.version, fixed: false };
  const { base, steps } = parseRefExpression(text, (name) => refNamed(info, name) !== undefined);
  const index = historyIndex(info.snapshots);
  const start = refNamed(info, base) ?? (await snapshotNamed(base, text, index, source));
  if (steps.length === 0) return { expression: text, snapshotId: idToString(start.id), version: start.version, fixed: start.fixed };
  let position = index.positionOf(start.id);
  let walked = base;
  for (const step of steps) {
    if (position < 0) throw floeError('NOT_FOUND', `${walked} is not in the repository's snapshot list, so ${text} cannot walk its history`, { where: text });
    position = applyStep(index, position, step, walked, text);
    walked += stepText(step);
  }
  const id = idToString(index.at(position).id);
  return { expression: text, snapshotId: id, version: { snapshotId: id }, fixed: false };
}

interface Start {
  readonly id: SnapshotId;
  readonly version: ResolvedRef['version'];
  readonly fixed: boolean;
}

function refNamed(info: RepoInfo, name: string): Start | undefined {
  const branch = info.branches.find((b) => b.name === name);
  if (branch) return { id: branch.snapshotId, version: { branch: name }, fixed: false };
  const tag = info.tags.find((t) => t.name === name);
  if (tag) return { id: tag.snapshotId, version: { tag: name }, fixed: false };
  return undefined;
}

/** A full snapshot id or a unique prefix of one; NOT_FOUND (with "did you mean") or AMBIGUOUS otherwise. */
async function snapshotNamed(base: string, text: string, index: HistoryIndex<SnapshotInfo>, source: RefResolutionSource): Promise<Start> {
  const upper = base.toUpperCase();
  if (BASE32.test(upper) && upper.length === ID_LENGTH) {
    const id = parseSnapshotId(upper);
    if (index.positionOf(id) >= 0 || (await source.snapshotExists(id))) return { id, version: { snapshotId: upper }, fixed: true };
    throw floeError('NOT_FOUND', `snapshot ${upper} is not in this repository`, { where: text });
  }
  if (BASE32.test(upper) && upper.length >= MIN_ID_PREFIX && upper.length < ID_LENGTH) {
    const matches = withPrefix(index, upper);
    const [only] = matches;
    if (matches.length === 1 && only) return { id: only.id, version: { snapshotId: idToString(only.id) }, fixed: false };
    if (matches.length > 1) throw ambiguousPrefix(upper, text, matches);
  }
  throw unknownBase(base, text, source.info);
}

/** Snapshots whose id starts with `prefix`: base32 keeps byte order, so they are one run of the sorted index. */
function withPrefix(index: HistoryIndex<SnapshotInfo>, prefix: string): SnapshotInfo[] {
  let lo = 0;
  let hi = index.size;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (idToString(index.at(mid).id) < prefix) lo = mid + 1;
    else hi = mid;
  }
  const out: SnapshotInfo[] = [];
  let previous: string | undefined;
  for (let pos = lo; pos < index.size; pos++) {
    const s = index.at(pos);
    const id = idToString(s.id);
    if (!id.startsWith(prefix)) break;
    if (id !== previous) out.push(s); // a damaged list may repeat an id
    previous = id;
  }
  return out;
}

function ambiguousPrefix(prefix: string, text: string, matches: readonly SnapshotInfo[]) {
  const shown = matches.slice(0, SHOWN_CANDIDATES).map(describeCandidate).join('; ');
  const more = matches.length > SHOWN_CANDIDATES ? `; and ${matches.length - SHOWN_CANDIDATES} more` : '';
  return floeError('AMBIGUOUS', `snapshot id prefix ${prefix} is ambiguous: ${matches.length} snapshots start with it: ${shown}${more}; give more characters of the id`, {
    where: text,
    details: { candidates: matches.map((s) => idToString(s.id)) },
  });
}

function describeCandidate(s: SnapshotInfo): string {
  const message = s.message.length > 40 ? `${s.message.slice(0, 40)}…` : s.message;
  return `${idToString(s.id)} ${new Date(Math.floor(s.flushedAt / 1000)).toISOString()} ${JSON.stringify(message)}`;
}

function unknownBase(base: string, text: string, info: RepoInfo) {
  const names = [...info.branches, ...info.tags].map((r) => r.name);
  const suggestions = closestNames(base, names);
  const hint = didYouMean(suggestions);
  const short = BASE32.test(base.toUpperCase()) && base.length < MIN_ID_PREFIX ? `; a snapshot id prefix needs at least ${MIN_ID_PREFIX} characters` : '';
  const list = (label: string, refs: readonly { name: string }[]) => `${label}: ${refs.slice(0, 10).map((r) => r.name).join(', ') || 'none'}${refs.length > 10 ? ', …' : ''}`;
  return floeError('NOT_FOUND', `no branch, tag or snapshot ${JSON.stringify(base)}${hint ? `; ${hint}` : ''}${short}; ${list('branches', info.branches)}; ${list('tags', info.tags)}`, {
    where: text,
    details: { suggestions },
  });
}

function stepText(step: RefStep): string {
  if (step.kind === 'ancestor') return `~${step.count}`;
  if (step.kind === 'parent') return `^${step.number}`;
  return `@{${step.date.toISOString()}}`;
}

/** The position one step leads to from `position`; NOT_FOUND when it leads past the history. */
function applyStep(index: HistoryIndex<SnapshotInfo>, position: number, step: RefStep, walked: string, text: string): number {
  if (step.kind === 'parent' && step.number > 1) {
    throw floeError('NOT_FOUND', `${text}: an Icechunk snapshot has one parent, so ${walked}^${step.number} names none; use ~N for ancestors`, { where: text });
  }
  if (step.kind === 'as-of') return asOf(index, position, step.date, walked, text);
  const back = step.kind === 'ancestor' ? step.count : step.number;
  let seen = 0;
  for (const p of index.ancestryPositions(position)) if (seen++ === back) return p;
  throw floeError('NOT_FOUND', `${text}: ${walked} has ${seen - 1} ancestor${seen - 1 === 1 ? '' : 's'}, so ${walked}~${back} names none`, { where: text });
}

function asOf(index: HistoryIndex<SnapshotInfo>, position: number, date: Date, walked: string, text: string): number {
  const limit = date.getTime();
  let oldest: SnapshotInfo | undefined;
  for (const p of index.ancestryPositions(position)) {
    oldest = index.at(p);
    if (Math.floor(oldest.flushedAt / 1000) <= limit) return p;
  }
  const since = oldest ? `; its oldest snapshot was written ${new Date(Math.floor(oldest.flushedAt / 1000)).toISOString()}` : '';
  throw floeError('NOT_FOUND', `${text}: ${walked} has no snapshot written at or before ${date.toISOString()}${since}`, { where: text });
}
