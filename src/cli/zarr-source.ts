// The source side of `floe import` (plain and --distributed): what format a source store is, its
// objects split into metadata and chunks, and the groups a repository needs before the store's
// nodes go in (the parents of the destination, and the store's implicit groups made explicit).
import { floeError } from '../errors.ts';
import { ZarrGroup } from '../engine/group.ts';
import type { FsStorage } from '../engine/storage/fs.ts';
import type { AbortOptions } from '../engine/storage/types.ts';
import { V1_META_KEY } from '../engine/v1-array.ts';
import { normalizePath } from '../format/zarr/paths.ts';
import type { Session } from '../txn/session.ts';

export type SourceFormat = 'v3' | 'v1' | 'v2';

export interface SourceObject {
  key: string;
  size: number;
}

/**
 * What the store is, by its root: zarr.json (v3), meta (v1), .zgroup or .zarray (v2); failing
 * those, a zarr.json further down makes it a v3 store whose root is an implicit group.
 */
export async function sourceFormat(src: FsStorage, source: string, request: AbortOptions): Promise<SourceFormat> {
  if (await src.head('zarr.json', request)) return 'v3';
  if (await src.head(V1_META_KEY, request)) return 'v1';
  if ((await src.head('.zgroup', request)) || (await src.head('.zarray', request))) return 'v2';
  for await (const info of src.list('', request)) if (info.key.endsWith('/zarr.json')) return 'v3';
  throw floeError('NOT_FOUND', `${source} has neither zarr.json (Zarr v3, at its root or below), .zgroup or .zarray (Zarr v2) nor meta (Zarr v1) at its root`);
}

/** A v3 store's objects: its zarr.json documents (parents before children) and everything else. */
export async function listV3(src: FsStorage, request: AbortOptions): Promise<{ metadata: SourceObject[]; chunks: SourceObject[] }> {
  const objects: SourceObject[] = [];
  for await (const info of src.list('', request)) objects.push({ key: info.key, size: info.size });
  const depth = (key: string) => key.split('/').length;
  const isMetadata = (o: SourceObject) => o.key === 'zarr.json' || o.key.endsWith('/zarr.json');
  return { metadata: objects.filter(isMetadata).sort((a, b) => depth(a.key) - depth(b.key)), chunks: objects.filter((o) => !isMetadata(o)) };
}

/** The key prefix of a destination path: `''` for `/`, `era5/` for `/era5`. */
export const keyPrefix = (target: string): string => (target === '/' ? '' : target.slice(1) + '/');

/** The root and every group above `target` (Icechunk keeps explicit groups only). */
export async function createParents(session: Session, target: string, request: AbortOptions): Promise<void> {
  const parts = target.split('/').filter(Boolean);
  for (let i = 0; i < parts.length; i++) {
    const parent = normalizePath('/' + parts.slice(0, i).join('/'));
    if (!session.view().nodeAt(parent)) await ZarrGroup.create(session.store, parent, { ...request });
  }
}

/** Creates the store's implicit groups under `prefix`; returns their directories. */
export async function createImplicitGroups(session: Session, metadata: readonly SourceObject[], prefix: string, request: AbortOptions): Promise<string[]> {
  const implicit = implicitGroups(metadata.map((m) => m.key));
  for (const dir of implicit) await ZarrGroup.create(session.store, normalizePath('/' + prefix + dir), { ...request });
  return implicit;
}

/**
 * Directories (relative, '' for the root) above some zarr.json that have none of their own:
 * Zarr v3 implicit groups. Icechunk keeps explicit groups only, so the import writes them; parents first.
 */
export function implicitGroups(metadataKeys: readonly string[]): string[] {
  const explicit = new Set(metadataKeys.map((key) => key.slice(0, -'zarr.json'.length).replace(/\/$/, '')));
  const needed = new Set<string>();
  for (const dir of explicit) {
    const parts = dir === '' ? [] : dir.split('/');
    for (let i = 0; i < parts.length; i++) {
      const above = parts.slice(0, i).join('/');
      if (!explicit.has(above)) needed.add(above);
    }
  }
  const depth = (dir: string) => (dir === '' ? 0 : dir.split('/').length);
  return [...needed].sort((a, b) => depth(a) - depth(b) || (a < b ? -1 : 1));
}
