// explain(): the plan as text, before anything but metadata, manifests, coordinates and shard
// indexes has been read. Sections follow the planner passes: dimensions (with each lookup's
// method and cost), arrays (result shape, boxes, chunks, manifests), manifests fetched or cached,
// shard indexes, then the requests execute() will issue with their expected bytes.
import { FETCH_PURPOSES, type FetchCounts } from './metered-store.ts';
import type { DimSet } from './plan/dim-set.ts';
import type { QueryPlan } from './plan/plan-types.ts';
import type { ManifestUse } from './source.ts';

const MAX_LISTED = 20;

/**
 * Prints a plan as text, section by section: dimensions (each lookup's method and cost), arrays,
 * manifests, shard indexes, then the requests `execute()` will issue with their expected bytes.
 */
export function formatPlan(plan: QueryPlan): string {
  const lines: string[] = [`query ${plan.query}`, 'dimensions'];
  for (const d of plan.dims) {
    const coord = d.coordinate ? `  labels ${d.coordinate.path} ${d.coordinate.dtype} ${d.coordinate.order}${d.coordinate.units ? ` (${d.coordinate.units})` : ''}` : '';
    lines.push(`  ${d.name}: ${d.count} of ${d.length} ${formatSet(d.set)}${coord}`);
    if (d.coordinate?.manifests) lines.push(`    manifests ${formatManifests(d.coordinate.manifests)}`);
    for (const l of d.lookups) {
      const cost = l.method === 'binary-search' || l.method === 'scan' ? `, ${l.comparisons} comparisons` : '';
      lines.push(`    ${l.operation}  ${l.method}${cost} -> ${l.selected}`);
    }
  }
  lines.push('arrays');
  for (const a of plan.arrays) {
    const shard = a.sharding ? `, shards of inner chunks [${a.sharding.innerChunkShape.join(', ')}], index ${a.sharding.indexBytes} B at ${a.sharding.indexLocation}` : '';
    lines.push(`  ${a.path} ${a.dtype} [${a.shape.join(', ')}] chunks [${a.chunkShape.join(', ')}]${shard}`);
    lines.push(`    result [${a.resultShape.join(', ')}] ${a.resultBytes} B, ${a.boxes} box${a.boxes === 1 ? '' : 'es'}, ${a.chunks} chunk${a.chunks === 1 ? '' : 's'}`);
    if (a.manifests) lines.push(`    manifests ${formatManifests(a.manifests)}`);
  }
  const manifests = [...plan.dims.flatMap((d) => d.coordinate?.manifests ?? []), ...plan.arrays.flatMap((a) => a.manifests ?? [])];
  if (manifests.length > 0) {
    const sum = (status: ManifestUse['status']) => {
      const some = manifests.filter((m) => m.status === status);
      return `${some.length} ${status} ${some.reduce((n, m) => n + (m.bytes ?? 0), 0)} B`;
    };
    lines.push(`manifests ${manifests.length}: ${sum('fetched')}, ${sum('cached')}`);
  }
  const idx = plan.shardIndexes;
  if (idx.length > 0) {
    const by = (s: string) => idx.filter((i) => i.status === s).length;
    lines.push(`shard indexes ${idx.length}: ${by('fetched')} fetched, ${by('cached')} cached, ${by('missing')} missing shards`);
  }
  const e = plan.expected;
  const unknown = e.unknownSizeObjects > 0 ? ` + ${e.unknownSizeObjects} whole object${e.unknownSizeObjects === 1 ? '' : 's'} of unknown size` : '';
  lines.push(`requests ${e.requests}, ${e.bytes} B${unknown}; ${e.cachedPieces} cached, ${e.decodedPieces} decoded in cache, ${e.emptyPieces} empty inner chunks`);
  for (const r of plan.requests.slice(0, MAX_LISTED)) {
    const range = r.range ? ` bytes ${r.range.offset}-${r.range.offset + r.range.length - 1}` : ' (whole)';
    const size = r.bytes === undefined ? '' : ` ${r.bytes} B`;
    const waste = r.range && r.wantedBytes !== undefined && r.bytes !== r.wantedBytes ? `, ${r.wantedBytes} B wanted` : '';
    lines.push(`  GET ${r.key}${range}${size} (${r.pieces} chunk${r.pieces === 1 ? '' : 's'}${waste})`);
  }
  if (plan.requests.length > MAX_LISTED) lines.push(`  ... ${plan.requests.length - MAX_LISTED} more`);
  lines.push(`planning fetched ${formatCounts(plan.planning)}`);
  return lines.join('\n');
}

export function formatCounts(counts: FetchCounts): string {
  return FETCH_PURPOSES.filter((p) => counts[p].requests > 0).map((p) => `${p} ${counts[p].requests} req ${counts[p].bytes} B`).join(', ') || 'nothing';
}

function formatManifests(uses: readonly ManifestUse[]): string {
  const listed = uses.slice(0, MAX_LISTED).map((m) => `${m.id} (${m.status}${m.bytes === undefined ? '' : `, ${m.bytes} B`})`);
  return `${uses.length}: ${listed.join(', ')}${uses.length > MAX_LISTED ? `, ... ${uses.length - MAX_LISTED} more` : ''}`;
}

function formatSet(set: DimSet): string {
  const runs = set.slice(0, 4).map((r) => (r.count === 1 ? `${r.start}` : `${r.start}..${r.start + (r.count - 1) * r.step}${r.step > 1 ? ` step ${r.step}` : ''}`));
  return `[${runs.join(', ')}${set.length > 4 ? `, ... ${set.length - 4} more runs` : ''}]`;
}
