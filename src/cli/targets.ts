// Naming things on the command line: a version (a ref expression, src/txn/ref-expression.ts:
// `main`, a tag, a snapshot id or a 4+ character prefix of one, `main~2`, `v1^`,
// `main@{2026-11-01}`) and a target `ref:path[slice]` such as `v1:/temperature[0, 10:20, ::2]`.
import { normalizePath } from '../format/zarr/paths.ts';
import type { ReadSource } from '../engine/read-source.ts';
import type { AbortOptions } from '../engine/storage/types.ts';
import type { Selection } from '../engine/selection.ts';
import { parseSelectionText } from '../engine/selection-text.ts';
import { isFloeError } from '../errors.ts';
import type { Repository, VersionOptions } from '../txn/index.ts';
import { UsageError } from './command.ts';

export interface Target {
  readonly ref: string;
  readonly path: string;
  /** Undefined: the whole array. */
  readonly selection: Selection | undefined;
}

/**
 * `ref:path[slice]`; without a colon the text is a path on `defaultRef`. Refs cannot contain ':'
 * (Icechunk's ref names follow git's rules), so the first colon outside `@{...}` (a date holds
 * colons: `main@{2026-11-01T12:00Z}:/t`) splits.
 */
export function parseTarget(text: string, defaultRef = 'main'): Target {
  let rest = text.trim();
  let selection: Selection | undefined;
  const open = rest.indexOf('[');
  if (open >= 0) {
    if (!rest.endsWith(']')) throw new UsageError(`a selection is written [start:stop:step, ...] at the end of the target, got ${JSON.stringify(text)}`);
    selection = parseSelection(rest.slice(open + 1, -1));
    rest = rest.slice(0, open);
  }
  const colon = refColon(rest);
  const ref = colon >= 0 ? rest.slice(0, colon) || defaultRef : defaultRef;
  const rawPath = colon >= 0 ? rest.slice(colon + 1) : rest;
  return { ref, path: normalizePath(rawPath === '' ? '/' : rawPath.startsWith('/') ? rawPath : '/' + rawPath), selection };
}

/** The index of the first ':' outside braces, or -1. */
function refColon(text: string): number {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '{') depth++;
    else if (c === '}') depth = Math.max(0, depth - 1);
    else if (c === ':' && depth === 0) return i;
  }
  return -1;
}

/** NumPy's basic indexing (src/engine/selection-text.ts), a mistake as a usage error. */
export function parseSelection(text: string): Selection {
  try {
    return parseSelectionText(text);
  } catch (err) {
    if (isFloeError(err, 'INVALID_SELECTION')) throw new UsageError(err.message);
    throw err;
  }
}

/** A ref expression as the version to open: see {@link Repository.resolve}. */
export async function resolveVersion(repo: Repository, ref: string, request?: AbortOptions): Promise<VersionOptions> {
  return (await repo.resolve(ref, request)).version;
}

/**
 * A version as read commands see it: the read seam (src/engine/read-source.ts) and the snapshot
 * it reads. A read-only session is one; read commands need nothing else of it.
 */
export type VersionReader = ReadSource & { readonly snapshotId: string };

export async function openReadonly(repo: Repository, ref: string, request?: AbortOptions): Promise<VersionReader> {
  return repo.readonlySession({ ...(await resolveVersion(repo, ref, request)), ...request });
}

/** A version as the reference's diff options spell it, for `from` or `to`. */
export function diffSide(version: VersionOptions, side: 'from' | 'to'): Record<string, string> {
  if ('branch' in version) return { [`${side}Branch`]: version.branch };
  if ('tag' in version) return { [`${side}Tag`]: version.tag };
  return { [`${side}SnapshotId`]: version.snapshotId };
}
