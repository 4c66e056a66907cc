// What `ls` and `show` say about a node of a version (read through the ReadSource seam): kind,
// shape, dtype, chunking (outer and sharded inner), codecs, attributes, and how many chunks and
// bytes it stores.
import { nodeMetadata, type NodeInfo, type ReadSource, type StoredChunk } from '../engine/read-source.ts';
import type { AbortOptions } from '../engine/storage/types.ts';
import type { CodecMetadata } from '../format/codecs/types.ts';
import type { NodeMetadata } from '../format/zarr/metadata.ts';
import type { JsonValue } from '../format/json.ts';

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
  /** Chunks (shards, when sharded) of the whole grid, stored or not, and the grid's shape in chunks. */
  readonly gridChunks?: number;
  readonly gridShape?: readonly number[];
  /** Inner chunks per shard of a sharded array. */
  readonly innerChunksPerShard?: number;
  /** The whole array in memory (undefined for variable-length types, whose size is only known by reading). */
  readonly decodedBytes?: number;
  /** The stored chunks decoded (each chunk full-size, as Zarr stores edge chunks). */
  readonly storedDecodedBytes?: number;
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

const storedBytes = ({ location }: StoredChunk): number => (location.kind === 'inline' ? location.bytes.length : location.length);

/** How many chunks an array stores and their bytes (inline, native and virtual alike). */
async function storage(source: ReadSource, path: string, request: AbortOptions | undefined): Promise<{ chunksStored: number; storedBytes: number }> {
  let chunksStored = 0;
  let bytes = 0;
  for await (const chunk of source.chunks(path, request)) {
    chunksStored++;
    bytes += storedBytes(chunk);
  }
  return { chunksStored, storedBytes: bytes };
}

export async function summarizeNode(source: ReadSource, node: NodeInfo, withStorage = true, request?: AbortOptions): Promise<NodeSummary> {
  const meta = nodeMetadata(node);
  if (meta.nodeType === 'group') return { path: node.path, kind: 'group', attributes: meta.attributes };
  const stored = withStorage ? await storage(source, node.path, request) : undefined;
  const inner = innerShape(meta);
  const sizes = arraySizes(meta.shape, meta.chunkShape, inner, meta.dataType.itemSize, stored?.chunksStored);
  return {
    path: node.path,
    kind: 'array',
    shape: meta.shape,
    dtype: typeof meta.dataTypeJson === 'string' ? meta.dataTypeJson : JSON.stringify(meta.dataTypeJson),
    chunkShape: meta.chunkShape,
    ...(inner ? { innerChunkShape: inner } : {}),
    codecs: codecText(meta.codecs),
    ...(meta.dimensionNames ? { dimensionNames: meta.dimensionNames } : {}),
    ...stored,
    ...sizes,
    attributes: meta.attributes,
  };
}

const product = (xs: readonly number[]): number => xs.reduce((a, b) => a * b, 1);

/** Grid chunk counts and decoded sizes, from metadata alone (itemSize 0: a variable-length type). */
export function arraySizes(shape: readonly number[], chunkShape: readonly number[], inner: readonly number[] | undefined, itemSize: number, chunksStored: number | undefined) {
  const gridShape = shape.map((n, d) => Math.ceil(n / Math.max(1, chunkShape[d] ?? 1)));
  const chunkBytes = product(chunkShape) * itemSize;
  return {
    gridChunks: product(gridShape),
    gridShape,
    ...(inner ? { innerChunksPerShard: product(chunkShape.map((c, d) => Math.ceil(c / Math.max(1, inner[d] ?? 1)))) } : {}),
    ...(itemSize > 0 ? { decodedBytes: product(shape) * itemSize } : {}),
    ...(itemSize > 0 && chunksStored !== undefined ? { storedDecodedBytes: chunksStored * chunkBytes } : {}),
  };
}

/**
 * Every node at or below `root`, in node-path order (depth first, children in order). `root`
 * itself may be no node (a repository's root before anyone wrote its zarr.json).
 */
export async function nodesUnder(source: ReadSource, root: string, request?: AbortOptions): Promise<NodeInfo[]> {
  const out: NodeInfo[] = [];
  const below = async (path: string): Promise<void> => {
    for (const child of await source.children(path, request)) {
      out.push(child);
      if (child.kind === 'group') await below(child.path);
    }
  };
  const top = await source.node(root, request);
  if (top) out.push(top);
  if (top?.kind !== 'array') await below(root);
  return out;
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
