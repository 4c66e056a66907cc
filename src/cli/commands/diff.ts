// `floe diff A B`: what changed from version A to version B: nodes, and per array how many of its
// chunks changed and the region they cover (index ranges, and coordinate labels at the ends).
import { nodeMetadata, type ReadSource } from '../../engine/read-source.ts';
import type { AbortOptions } from '../../engine/storage/types.ts';
import type { DiffResult } from '../../txn/index.ts';
import type { CommandSpec } from '../command.ts';
import { labelsAt, loadDimCoordinate } from '../dimension-labels.ts';
import { openRepository } from '../repository-location.ts';
import { diffSide, resolveVersion } from '../targets.ts';

const SHOWN_CHUNKS = 8;

/** Per changed array: chunks changed of the grid, and the index box those chunks cover. */
export interface ChunkChange {
  readonly changed: number;
  readonly gridChunks: number;
  /** [start, stop) per dimension: the union of the changed chunks, clipped to the shape. */
  readonly region: readonly (readonly [number, number])[];
  readonly dims: readonly string[];
  /** The coordinate labels at each dimension's first and last index of the region. */
  readonly labels: Readonly<Record<string, readonly [string, string]>>;
}

export const diffCommand: CommandSpec = {
  usage: 'FROM TO',
  details: 'FROM and TO are branches, tags, snapshot ids, or ref~N. Per array: how many chunks changed and the region they cover.',
  examples: ['floe diff v1.0 main', 'floe diff main~1 main --json'],
  async run(ctx) {
    ctx.atMost(2);
    const repo = await openRepository(ctx);
    const request = ctx.request;
    const from = await resolveVersion(repo, ctx.positional(0, 'FROM version'), request);
    const to = await resolveVersion(repo, ctx.positional(1, 'TO version'), request);
    const diff = await repo.diff({ ...diffSide(from, 'from'), ...diffSide(to, 'to'), ...request });
    const changes = Object.keys(diff.updatedChunks).length > 0 ? await chunkChanges(await repo.readonlySession({ ...to, ...request }), diff, request) : {};
    if (ctx.json) return ctx.printJson({ ...diff, chunkChanges: changes });
    for (const line of describeDiff(diff, changes)) ctx.print(line);
  },
};

/** Chunk counts and regions of every array with changed chunks, read from the TO version's metadata. */
export async function chunkChanges(source: ReadSource, diff: DiffResult, request?: AbortOptions): Promise<Record<string, ChunkChange>> {
  const out: Record<string, ChunkChange> = {};
  for (const [path, chunks] of Object.entries(diff.updatedChunks)) {
    const node = await source.node(path, request);
    const meta = node ? nodeMetadata(node) : undefined;
    if (!meta || meta.nodeType !== 'array' || chunks.length === 0) continue;
    const { shape, chunkShape } = meta;
    const region = shape.map((n, d): [number, number] => {
      const size = chunkShape[d] ?? 1;
      const coords = chunks.map((c) => c[d] ?? 0);
      return [Math.min(n, Math.min(...coords) * size), Math.min(n, (Math.max(...coords) + 1) * size)];
    });
    const dims = shape.map((_, d) => meta.dimensionNames?.[d] ?? `#${d}`);
    const labels: Record<string, readonly [string, string]> = {};
    for (const [d, [start, stop]] of region.entries()) {
      const name = dims[d] ?? `#${d}`;
      const coordinate = await loadDimCoordinate(source, path, name, shape[d] ?? 0, request);
      if (!coordinate || stop <= start) continue;
      const [first = '', last = ''] = labelsAt(coordinate, [start, stop - 1]);
      labels[name] = [first, last];
    }
    const gridChunks = shape.reduce((n, len, d) => n * Math.ceil(len / Math.max(1, chunkShape[d] ?? 1)), 1);
    out[path] = { changed: chunks.length, gridChunks, region, dims, labels };
  }
  return out;
}

export function describeDiff(diff: DiffResult, changes: Readonly<Record<string, ChunkChange>> = {}): string[] {
  const lines: string[] = [];
  const list = (label: string, paths: string[]) => paths.forEach((p) => lines.push(`${label} ${p}`));
  list('+ group  ', diff.newGroups);
  list('+ array  ', diff.newArrays);
  list('- group  ', diff.deletedGroups);
  list('- array  ', diff.deletedArrays);
  list('~ group  ', diff.updatedGroups);
  list('~ array  ', diff.updatedArrays);
  for (const m of diff.movedNodes) lines.push(`> moved    ${m.from} -> ${m.to}`);
  for (const [path, chunks] of Object.entries(diff.updatedChunks)) {
    const change = changes[path];
    const shown = chunks.slice(0, SHOWN_CHUNKS).map((c) => `[${c.join(',')}]`).join(' ');
    const more = chunks.length > SHOWN_CHUNKS ? ` ... ${chunks.length - SHOWN_CHUNKS} more` : '';
    const of = change ? ` of ${change.gridChunks}` : '';
    lines.push(`~ chunks   ${path}: ${chunks.length}${of} chunk${(change?.gridChunks ?? chunks.length) === 1 ? '' : 's'} changed ${shown}${more}`);
    if (change) {
      const box = change.region.map(([a, b]) => `${a}:${b}`).join(', ');
      const labelled = change.dims.filter((d) => change.labels[d]).map((d) => {
        const [first, last] = change.labels[d] ?? ['', ''];
        return first === last ? `${d} ${first}` : `${d} ${first} .. ${last}`;
      });
      lines.push(`           region [${box}]${labelled.length > 0 ? `: ${labelled.join(', ')}` : ''}`);
    }
  }
  if (lines.length === 0) lines.push('no differences');
  return lines;
}
