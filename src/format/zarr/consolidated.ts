// Consolidated metadata of Zarr v3 as zarr-python 3 writes it: a group's zarr.json carries
// `"consolidated_metadata": {"kind": "inline", "must_understand": false, "metadata": {...}}`, the
// zarr.json document of every node below the group by its path relative to the group ("a",
// "a/b"), sorted by depth, then by path (zarr-python >= 3.1.1). A `null` field, or a kind other
// than "inline", means there is none to use.
import { floeError } from '../../errors.ts';
import { isJsonObject, type JsonValue } from '../json.ts';
import type { GroupMetadata } from './metadata.ts';

export const CONSOLIDATED_FIELD = 'consolidated_metadata';

/** Node documents by path relative to the group. */
export type ConsolidatedEntries = ReadonlyMap<string, { readonly [key: string]: JsonValue }>;

/** The entries a group's consolidated metadata holds, or undefined when it has none to use. */
export function readInlineConsolidated(group: GroupMetadata, where: string): ConsolidatedEntries | undefined {
  const field = group.extra[CONSOLIDATED_FIELD];
  if (!isJsonObject(field) || field.kind !== 'inline') return undefined;
  const metadata = field.metadata;
  if (!isJsonObject(metadata)) throw floeError('INVALID_METADATA', `"${CONSOLIDATED_FIELD}.metadata" must be an object of node documents`, { where });
  const entries = new Map<string, { [key: string]: JsonValue }>();
  for (const [path, doc] of Object.entries(metadata)) {
    if (!isJsonObject(doc)) throw floeError('INVALID_METADATA', `"${CONSOLIDATED_FIELD}.metadata" entry ${JSON.stringify(path)} must be a node document`, { where });
    entries.set(path.replace(/^\/+|\/+$/g, ''), doc);
  }
  return entries;
}

/** The field to write for `entries`; nested groups' own consolidated metadata is left out. */
export function inlineConsolidatedJson(entries: ConsolidatedEntries): JsonValue {
  const metadata: { [key: string]: JsonValue } = {};
  for (const path of sortedPaths([...entries.keys()])) {
    const { [CONSOLIDATED_FIELD]: _nested, ...doc } = entries.get(path) ?? {};
    metadata[path] = doc;
  }
  return { kind: 'inline', must_understand: false, metadata };
}

/** Depth first, then code unit order: zarr-python 3.1.1's deterministic order. */
export function sortedPaths(paths: readonly string[]): string[] {
  const depth = (p: string) => p.split('/').length;
  return [...paths].sort((a, b) => depth(a) - depth(b) || (a < b ? -1 : a > b ? 1 : 0));
}

/** A copy of `group` whose consolidated metadata is `entries`. */
export function withInlineConsolidated(group: GroupMetadata, entries: ConsolidatedEntries): GroupMetadata {
  return Object.freeze({ ...group, extra: { ...group.extra, [CONSOLIDATED_FIELD]: inlineConsolidatedJson(entries) } });
}
