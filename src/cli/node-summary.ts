// What `ls` and `show` say about a node of a session: kind, shape, dtype, chunking (outer and
// sharded inner), codecs, attributes, and how many chunks and bytes it stores in the repository.
import type { CodecMetadata } from '../format/codecs/types.ts';
import { parseNodeMetadata, type NodeMetadata } from '../format/zarr/metadata.ts';
import type { ChunkRef } from '../format/icechunk/manifest.ts';
import type { JsonValue } from '../format/json.ts';
import { currentChunkRefs, type ResolvedNode } from '../txn/node-view.ts';
import type { Session } from '../txn/index.ts';

export interface NodeSummary {
  readonly path: string;
  readonly kind: 'array' | 'group';
  readonly shape?: readonly number[];
  readonly dtype?: string;
  readonly chunkShape?: readonly number[];
  /** Inner chunks of a sharded array (the outer chunks are then shards). */
  readonly innerChunkShape?: readonly number[];
  readonly codecs?: string;
  readonly dimensionNames?: readonly (string | null)[];
  readonly chunksStored?: number;
  readonly storedBytes?: number;
  readonly attributes: Readonly<Record<string, JsonValue>>;
}

export function codecText(codecs: readonly CodecMetadata[]): string {
  return codecs
    .map((c) => {
      const inner = (c.configuration as { codecs?: CodecMetadata[] } | undefined)?.codecs;
      return c.name === 'sharding_indexed' && inner ? `sharding(${codecText(inner)})` : c.name;
    })
    .join(' > ');
}

function innerShape(meta: NodeMetadata): readonly number[] | undefined {
  if (meta.nodeType !== 'array') return undefined;
  const sharding = meta.codecs.find((c) => c.name === 'sharding_indexed');
  return (sharding?.configuration as { chunk_shape?: number[] } | undefined)?.chunk_shape;
}

const refBytes = (ref: ChunkRef): number => (ref.kind === 'inline' ? ref.data.length : ref.length);

export async function summarizeNode(session: Session, node: ResolvedNode, withStorage = true): Promise<NodeSummary> {
  const meta = parseNodeMetadata(node.userData, `${node.path} zarr.json`);
  if (meta.nodeType === 'group') return { path: node.path, kind: 'group', attributes: meta.attributes };
  const refs = withStorage ? await currentChunkRefs(session.objects, session.changes, node) : undefined;
  const inner = innerShape(meta);
  return {
    path: node.path,
    kind: 'array',
    shape: meta.shape,
    dtype: typeof meta.dataTypeJson === 'string' ? meta.dataTypeJson : JSON.stringify(meta.dataTypeJson),
    chunkShape: meta.chunkShape,
    ...(inner ? { innerChunkShape: inner } : {}),
    codecs: codecText(meta.codecs),
    ...(meta.dimensionNames ? { dimensionNames: meta.dimensionNames } : {}),
    ...(refs ? { chunksStored: refs.length, storedBytes: refs.reduce((n, r) => n + refBytes(r), 0) } : {}),
    attributes: meta.attributes,
  };
}

/** Every node at or below `root`, sorted by path. */
export function nodesUnder(session: Session, root: string): ResolvedNode[] {
  const prefix = root === '/' ? '/' : root + '/';
  return session.view().nodes().filter((n) => n.path === root || n.path.startsWith(prefix));
}

export function formatBytes(bytes: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return unit === 0 ? `${bytes} B` : `${value.toFixed(value >= 100 ? 0 : 1)} ${units[unit]}`;
}
