// `virtualize(session, sources, options)`: existing files as versioned arrays without copying
// their bytes. Each source (a path, file:// or http(s):// URL; up to 8 at once) is scanned
// (NetCDF-3: its header only) or read (kerchunk references), each variable becomes a Zarr v3 array
// in the session whose chunks are virtual refs (file, offset, length, and the file's ETag over
// HTTP, else its modification time in whole seconds, so a file changed after the import is
// refused when read); what cannot be referenced is reported per variable and the rest still
// imports. With `concat`, the files' plans are joined along a dimension first
// (virtual-combine.ts). Nothing is written to the session until every source has been scanned and
// every location has a virtual chunk container (or `addContainers` added them to the config).
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { floeError, isFloeError } from '../errors.ts';
import { openByteSource, type ByteSource } from '../engine/byte-source.ts';
import { ZarrArray } from '../engine/array.ts';
import { ZarrGroup } from '../engine/group.ts';
import { requestOf } from '../engine/abort.ts';
import type { AbortOptions } from '../engine/storage/types.ts';
import { chunkKey } from '../format/zarr/chunk-keys.ts';
import { joinPath, keyPrefix, normalizePath } from '../format/zarr/paths.ts';
import type { VirtualChunkContainer } from './config.ts';
import type { Repository } from './repository.ts';
import type { Session } from './session.ts';
import { containerFor } from './virtual-chunks.ts';
import { planKerchunk } from './kerchunk-import.ts';
import { planNetcdf3 } from './netcdf3-scan.ts';
import { isHdf5, planHdf5 } from './hdf5-scan.ts';
import type { PlannedSource, SkippedVariable } from './virtual-plan.ts';
import { combinePlans, type ConcatOptions, type RangeReader } from './virtual-combine.ts';

export type { SkippedVariable } from './virtual-plan.ts';
export type { ConcatOptions } from './virtual-combine.ts';

/** Options of {@link virtualize}. */
export interface VirtualizeOptions extends AbortOptions {
  /** The group the variables go under (default `/`); with several sources, each file's own group below it, named after the file. */
  path?: string;
  /** Largest chunk a contiguous NetCDF-3 or HDF5 variable is split into (default 8 MiB). */
  maxChunkBytes?: number;
  /**
   * HDF5: map filters whose chunks only Floe decodes (HDF5's own LZ4 framing, filter 32004).
   * Default false: such variables are skipped with the reason.
   */
  allowFloeOnlyCodecs?: boolean;
  /**
   * Add a virtual chunk container (local files: `file:///<directory>/`) to the repository's
   * stored configuration for every location no container serves. Needs `repository`. Without
   * it, a missing container is UNAUTHORIZED (reason `virtual-chunk-no-container`) naming the prefix.
   */
  addContainers?: boolean;
  /** The session's repository: needed only to add containers. */
  repository?: Repository;
  /** Replace nodes that already exist at the destination (default: ALREADY_EXISTS). */
  overwrite?: boolean;
  /**
   * Join the files into one set of arrays along a dimension they have (`{ dim: 'time' }`) or a
   * new leading one (`{ dim: 'file', new: true }`), under `path`; see docs/virtual.md. Other
   * dimensions, data types, codecs, fill values and chunk shapes must agree (INVALID_ARGUMENT
   * naming the file, the variable and the field otherwise); coordinate variables are stored as
   * real chunks.
   */
  concat?: ConcatOptions;
  /** Called after each source is scanned, then after each is recorded in the session. */
  onProgress?: (progress: VirtualizeProgress) => void;
}

/** What {@link VirtualizeOptions.onProgress} is told. */
export interface VirtualizeProgress {
  /** `scanned`: a source was read (nothing written yet); `recorded`: its arrays are in the session. */
  readonly phase: 'scanned' | 'recorded';
  /** The file (absolute path). */
  readonly source: string;
  /** Sources scanned (or recorded) so far, this one included. */
  readonly sourcesDone: number;
  readonly sourcesTotal: number;
  /** Chunks of this source (virtual and stored). */
  readonly chunks: number;
}

/** A variable {@link virtualize} recorded as an array. */
export interface VirtualizedVariable {
  /** The file (absolute path); with `concat`, the first of the files combined. */
  readonly source: string;
  /** Its name in the file (kerchunk: its path in the references). */
  readonly variable: string;
  /** The array's path in the session. */
  readonly path: string;
  readonly shape: readonly number[];
  /** The Zarr v3 data type. */
  readonly dataType: string;
  /** Chunks recorded as virtual refs. */
  readonly virtualChunks: number;
  /** Chunks stored in the repository (kerchunk inline data; NetCDF-3 chunks the file ends inside). */
  readonly storedChunks: number;
}


/** What {@link virtualize} recorded and skipped. */
export interface VirtualizeResult {
  /** Each file, what it was read as (`NetCDF-3 classic`, `kerchunk references`, ...) and the group it went to. */
  readonly sources: readonly { readonly source: string; readonly format: string; readonly group: string }[];
  /** Variables recorded, in file order. */
  readonly imported: readonly VirtualizedVariable[];
  /** Variables not recorded, with the reason. */
  readonly skipped: readonly SkippedVariable[];
  /** Containers added to the repository's configuration. */
  readonly containersAdded: readonly string[];
}

/**
 * Sources opened by one {@link virtualize} call. Local files are closed after their scan (a
 * thousand files would hold a thousand descriptors) and reopened for coordinates; HTTP sources
 * are kept when `keep` (combining reads coordinates from them: their header blocks are still
 * cached, so that costs no request) and all closed at the end.
 */
class SourcePool {
  private readonly open = new Map<string, ByteSource>();
  constructor(private readonly keep: boolean) {}

  async use<T>(location: string, options: AbortOptions | undefined, body: (source: ByteSource) => Promise<T>): Promise<T> {
    const key = location.startsWith('file://') ? fileURLToPath(location) : location;
    const kept = this.open.get(key);
    const source = kept ?? (await openByteSource(key, options));
    const remote = /^https?:\/\//i.test(key);
    try {
      return await body(source);
    } finally {
      if (remote && this.keep) this.open.set(key, source);
      else if (!kept) await source.close();
    }
  }

  async close(): Promise<void> {
    const all = [...this.open.values()];
    this.open.clear();
    await Promise.all(all.map((s) => s.close()));
  }
}

/** Which scanner reads `file` (a path or an http(s):// URL): kerchunk references are JSON (`.json`, or text starting with `{`). */
function planSource(pool: SourcePool, file: string, options: VirtualizeOptions): Promise<PlannedSource> {
  return pool.use(file, options, async (source) => {
    const start = await source.read(0, Math.min(source.size, 64), options);
    const text = new TextDecoder().decode(start).trimStart();
    if (file.endsWith('.json') || text.startsWith('{')) return await planKerchunk(source, file, options);
    if (await isHdf5(source, start)) return await planHdf5(source, file, options);
    return await planNetcdf3(source, file, options);
  });
}

/** Byte ranges of a virtual ref's location (the coordinates {@link combinePlans} stores as real chunks). */
const rangeReader = (pool: SourcePool): RangeReader => async (location, ranges, options) => {
  if (!/^(file|https?):\/\//i.test(location)) throw floeError('UNSUPPORTED', `cannot read ${location} to store its coordinates: file:// and http(s):// locations only`, { where: location });
  // Issued together: over HTTP, range batching sends them as few requests.
  return pool.use(location, options, (source) => Promise.all(ranges.map((r) => source.read(r.offset, r.length, options))));
};

/** The container a local file's directory needs. */
function containerForUrl(url: string): VirtualChunkContainer | undefined {
  if (url.startsWith('file://')) {
    const dir = path.dirname(fileURLToPath(url));
    const prefix = pathToFileURL(dir.endsWith(path.sep) ? dir : dir + path.sep).href;
    return { urlPrefix: prefix, store: { type: 'LocalFileSystem', field0: dir } };
  }
  const http = /^(https?:\/\/[^/?#]+\/(?:[^?#]*\/)?)/.exec(url);
  if (http?.[1]) return { urlPrefix: http[1], store: { type: 'Http', field0: {} } };
  return undefined;
}

/** Files scanned at once. */
const SCAN_CONCURRENCY = 8;

/** Scans every source, then records them in `session`; see the module comment. */
export async function virtualize(session: Session, sources: readonly string[], options: VirtualizeOptions = {}): Promise<VirtualizeResult> {
  const request = requestOf(options);
  if (sources.length === 0) throw floeError('INVALID_ARGUMENT', 'virtualize needs at least one file');
  const base = normalizePath(options.path ?? '/');
  const scanned: PlannedSource[] = [];
  let planned: PlannedSource[] = scanned;
  const pool = new SourcePool(options.concat !== undefined);
  try {
    // Several files scanned at once (over HTTP each costs round trips), kept in the order given;
    // after a failure no new scan starts, and the first error is thrown once all have stopped.
    let next = 0;
    let done = 0;
    let failed = false;
    const worker = async () => {
      while (!failed && next < sources.length) {
        const i = next++;
        const source = sources[i] as string;
        const location = /^https?:\/\//i.test(source) ? source : path.resolve(source.startsWith('file://') ? fileURLToPath(source) : source);
        try {
          const p = await planSource(pool, location, options);
          scanned[i] = p;
          options.onProgress?.({ phase: 'scanned', source: p.source, sourcesDone: ++done, sourcesTotal: sources.length, chunks: p.arrays.reduce((n, a) => n + a.refs.length + a.stored.length, 0) });
        } catch (err) {
          failed = true;
          throw err;
        }
      }
    };
    const settled = await Promise.allSettled(Array.from({ length: Math.min(SCAN_CONCURRENCY, sources.length) }, worker));
    const error = settled.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (error) throw error.reason;
    if (options.concat) planned = [await combinePlans(scanned, options.concat, rangeReader(pool), options)];
  } finally {
    await pool.close();
  }
  const groupOf = (p: PlannedSource) => (planned.length === 1 ? base : joinPath(base, path.basename(p.source).replace(/\.[^.]*$/, '').replace(/[^\w.-]/g, '_') || 'file'));

  checkDestinations(session, planned.map((p) => ({ group: groupOf(p), plan: p })), options.overwrite ?? false);

  // Containers: checked once per distinct location, before anything is written.
  const locations = new Set<string>();
  for (const p of planned) for (const a of p.arrays) for (const r of a.refs) locations.add(r.location);
  const containers = [...session.virtual.containers];
  const missing = new Map<string, VirtualChunkContainer>();
  for (const location of locations) {
    if (containerFor(containers, location) || [...missing.values()].some((c) => containerFor([c], location))) continue;
    const needed = containerForUrl(location);
    if (!needed) throw floeError('UNSUPPORTED', `no virtual chunk container serves ${location}, and Floe cannot make one for it (file:// and http(s):// only)`, { where: location });
    missing.set(needed.urlPrefix, needed);
  }
  const added: string[] = [];
  if (missing.size > 0) {
    const prefixes = [...missing.keys()];
    if (!options.addContainers || !options.repository) {
      throw floeError('UNAUTHORIZED',
        `no virtual chunk container serves ${prefixes.join(', ')}; pass addContainers: true with the repository (the CLI: --yes) to add ${prefixes.length === 1 ? 'it' : 'them'} to the configuration, or add ${prefixes.length === 1 ? 'one' : 'them'} yourself (repository config virtualChunkContainers)`,
        { where: prefixes[0], details: { reason: 'virtual-chunk-no-container' } });
    }
    const config = options.repository.config;
    const current = { ...(config.virtualChunkContainers ?? {}) };
    for (const [prefix, container] of missing) current[prefix] = container;
    await options.repository.replaceConfig({ ...config, virtualChunkContainers: current }, request);
    added.push(...prefixes);
  }

  const imported: VirtualizedVariable[] = [];
  const skipped: SkippedVariable[] = planned.flatMap((p) => p.skipped);
  const store = session.store;
  for (const [i, p] of planned.entries()) {
    const group = groupOf(p);
    await ensureGroups(session, group, request);
    for (const g of p.groups) await ZarrGroup.create(store, below(group, g.relativePath), { attributes: g.attributes, ...request });
    let chunks = 0;
    for (const a of p.arrays) {
      const arrayPath = below(group, a.relativePath);
      let array: ZarrArray;
      try {
        array = await ZarrArray.create(store, arrayPath, { ...a.metadata, overwrite: options.overwrite ?? false }, request);
      } catch (err) {
        if (isFloeError(err, 'ALREADY_EXISTS')) throw floeError('ALREADY_EXISTS', `${arrayPath} already exists; virtualize into another path, or pass overwrite`, { where: arrayPath, cause: err });
        if (!isFloeError(err) || isFloeError(err, 'READ_ONLY', 'ABORTED')) throw err;
        skipped.push({ source: p.source, variable: a.variable, reason: err.message });
        continue;
      }
      const failed = await store.setVirtualRefs(arrayPath, a.refs, added.length === 0);
      if (failed) throw floeError('INVALID_ARGUMENT', `${failed.length} virtual refs of ${arrayPath} could not be set (first: chunk ${failed[0]?.join(',')})`, { where: arrayPath });
      const prefix = keyPrefix(arrayPath);
      for (const s of a.stored) await store.set(prefix + chunkKey(array.metadata.chunkKeyEncoding, s.index), s.bytes, request);
      chunks += a.refs.length + a.stored.length;
      imported.push({ source: p.source, variable: a.variable, path: arrayPath, shape: array.metadata.shape, dataType: a.metadata.dataType, virtualChunks: a.refs.length, storedChunks: a.stored.length });
    }
    options.onProgress?.({ phase: 'recorded', source: p.source, sourcesDone: i + 1, sourcesTotal: planned.length, chunks });
  }
  const described = options.concat ? scanned.map((p) => ({ source: p.source, format: p.format, group: base })) : planned.map((p) => ({ source: p.source, format: p.format, group: groupOf(p) }));
  return { sources: described, imported, skipped, containersAdded: added };
}

/**
 * Before anything is written: two files may not land in one group, and no array may land on an
 * existing node (unless overwriting), so a refusal leaves the session as it was.
 */
function checkDestinations(session: Session, targets: readonly { group: string; plan: PlannedSource }[], overwrite: boolean): void {
  const groups = new Map<string, string>();
  for (const { group, plan } of targets) {
    const other = groups.get(group);
    if (other !== undefined) {
      throw floeError('INVALID_ARGUMENT', `${other} and ${plan.source} would both go to the group ${group}; rename one of the files, or virtualize them separately with different paths`, { where: group });
    }
    groups.set(group, plan.source);
    if (overwrite) continue;
    for (const a of plan.arrays) {
      const at = below(group, a.relativePath);
      if (session.view().nodeAt(at)) throw floeError('ALREADY_EXISTS', `${at} already exists (from ${plan.source}: ${a.variable}); virtualize into another path, or pass overwrite`, { where: at });
    }
  }
}

/** `relative` ('' or `a/b`) under the group `group`. */
const below = (group: string, relative: string) => (relative === '' ? group : normalizePath(`${group}/${relative}`));

/** The group at `target` and every group above it (Icechunk keeps explicit groups only). */
async function ensureGroups(session: Session, target: string, request: AbortOptions | undefined): Promise<void> {
  const parts = target.split('/').filter(Boolean);
  for (let i = 0; i <= parts.length; i++) {
    const p = normalizePath('/' + parts.slice(0, i).join('/'));
    if (!session.view().nodeAt(p)) await ZarrGroup.create(session.store, p, { ...request });
  }
}
