// kerchunk references as arrays to record (virtualize.ts writes them). Arrays are Zarr v2
// `.zarray` documents: they become Zarr v3 metadata through the same plan `floe import` uses for
// v2 stores (format/zarr-v2/to-v3.ts), and are referenced only when that plan reads the stored
// chunks as they are (`verbatim`: every compressor and filter has a v3 codec writing the same
// bytes); otherwise the variable is skipped with the reason. Byte ranges become virtual refs,
// inline data stored chunks, `[url]` the whole (local) file. Local files' modification times are
// recorded (whole seconds) so a file changed after the import is refused when read.
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL, fileURLToPath } from 'node:url';
import { floeError, isFloeError } from '../errors.ts';
import type { ByteSource } from '../engine/byte-source.ts';
import type { AbortOptions } from '../engine/storage/types.ts';
import { parseKerchunkReferences, type KerchunkChunk } from '../format/kerchunk/references.ts';
import { parseChunkKey } from '../format/zarr/chunk-keys.ts';
import type { JsonValue } from '../format/json.ts';
import { parseV2ArrayMetadata, parseV2Attributes, v2ArrayView, type V2ArrayMetadata } from '../format/zarr-v2/metadata.ts';
import { planV2ToV3 } from '../format/zarr-v2/to-v3.ts';
import type { Attributes } from '../format/zarr/metadata.ts';
import type { VirtualChunkSpec } from './session-store.ts';
import { nodeNameProblem, type PlannedArray, type PlannedSource, type SkippedVariable } from './virtual-plan.ts';

/** Largest references file read (they are held in memory as parsed JSON). */
export const MAX_REFERENCES_BYTES = 1024 * 1024 * 1024;

export async function planKerchunk(source: ByteSource, file: string, options?: AbortOptions): Promise<PlannedSource> {
  if (source.size > MAX_REFERENCES_BYTES) {
    throw floeError('UNSUPPORTED', `kerchunk references ${file} are ${source.size} bytes, more than the ${MAX_REFERENCES_BYTES} Floe reads into memory; split them`, { where: file, details: { file } });
  }
  const refs = parseKerchunkReferences(await source.read(0, source.size, options), file, Math.max(source.size, 1));
  const attrsOf = (dir: string): Attributes => {
    const doc = refs.metadata.get(dir === '' ? '.zattrs' : `${dir}/.zattrs`);
    return doc === undefined ? {} : parseV2Attributes(doc, `${file}: ${dir}/.zattrs`);
  };
  const arrayDirs = new Map<string, JsonValue>();
  const groupDirs = new Set<string>();
  for (const [key, doc] of refs.metadata) {
    const dir = key.replace(/\/?\.z\w+$/, '');
    if (key.endsWith('.zarray')) arrayDirs.set(dir, doc);
    if (key.endsWith('.zgroup')) groupDirs.add(dir);
  }
  // Groups above arrays (Icechunk keeps explicit groups only).
  for (const dir of [...arrayDirs.keys(), ...groupDirs]) {
    const parts = dir.split('/').filter(Boolean);
    for (let i = 0; i < parts.length; i++) groupDirs.add(parts.slice(0, i).join('/'));
  }
  const skipped: SkippedVariable[] = [];
  const metas = new Map<string, { meta: V2ArrayMetadata; plan: ReturnType<typeof planV2ToV3> }>();
  for (const [dir, doc] of arrayDirs) {
    const where = `${file}: ${dir === '' ? '' : dir + '/'}.zarray`;
    const problem = dir.split('/').filter(Boolean).map(nodeNameProblem).find((p) => p !== undefined);
    if (problem) {
      skipped.push({ source: file, variable: dir, reason: problem });
      continue;
    }
    try {
      const meta = parseV2ArrayMetadata(doc, where);
      const attributes = attrsOf(dir);
      const plan = planV2ToV3(meta, attributes, v2ArrayView(meta, attributes, where).chunkCodec, where);
      if (!plan.verbatim) skipped.push({ source: file, variable: dir, reason: 'its chunks would need re-encoding for Zarr v3 (a dtype or filter without a v3 form that reads the stored bytes), so they cannot stay in the file' });
      else metas.set(dir, { meta, plan });
    } catch (err) {
      if (!isFloeError(err)) throw err;
      skipped.push({ source: file, variable: dir, reason: err.message });
    }
  }
  const base = /^https?:\/\//i.test(file) ? file : path.dirname(file);
  const chunksOf = new Map<string, { index: number[]; chunk: KerchunkChunk }[]>();
  for (const [key, chunk] of refs.chunks) {
    const owner = ownerOf(key, metas);
    if (!owner) continue; // not a chunk of any array: nothing in Zarr reads it
    let list = chunksOf.get(owner.dir);
    if (!list) chunksOf.set(owner.dir, (list = []));
    list.push({ index: owner.index, chunk });
  }
  const files = new Map<string, LocalInfo | null>();
  const arrays: PlannedArray[] = [];
  for (const [dir, { plan }] of metas) {
    const refsOut: VirtualChunkSpec[] = [];
    const stored: { index: number[]; bytes: Uint8Array }[] = [];
    let reason: string | undefined;
    for (const { index, chunk } of chunksOf.get(dir) ?? []) {
      if (chunk.kind === 'inline') {
        stored.push({ index, bytes: chunk.bytes });
        continue;
      }
      const url = resolveUrl(chunk.url, base);
      const local = url.startsWith('file://') ? await localInfo(url, files) : undefined;
      if (local === null) {
        reason = `chunk ${index.join('.')} refers to ${url}, which does not exist`;
        break;
      }
      if (chunk.kind === 'whole') {
        if (!local) {
          reason = `chunk ${index.join('.')} refers to the whole of ${url}, whose size Floe does not fetch yet (a remote [url] reference)`;
          break;
        }
        refsOut.push({ index, location: url, offset: 0, length: local.size, lastModified: local.mtime });
      } else {
        refsOut.push({ index, location: url, offset: chunk.offset, length: chunk.length, lastModified: local?.mtime ?? null });
      }
    }
    if (reason) skipped.push({ source: file, variable: dir, reason });
    else arrays.push({ variable: dir, relativePath: dir, metadata: plan.metadata, refs: refsOut, stored });
  }
  const groups = [...groupDirs].filter((d) => !metas.has(d) && !arrayDirs.has(d)).sort((a, b) => a.split('/').length - b.split('/').length || (a < b ? -1 : 1));
  return { source: file, format: 'kerchunk references', groups: groups.map((d) => ({ relativePath: d, attributes: attrsOf(d) })), arrays, skipped };
}

/** The array a chunk key belongs to and its grid index (inside the grid), or undefined. */
function ownerOf(key: string, metas: ReadonlyMap<string, { meta: V2ArrayMetadata }>): { dir: string; index: number[] } | undefined {
  for (let cut = key.lastIndexOf('/'); ; cut = key.lastIndexOf('/', cut - 1)) {
    const dir = cut < 0 ? '' : key.slice(0, cut);
    const entry = metas.get(dir);
    if (entry) {
      const { meta } = entry;
      const index = parseChunkKey({ name: 'v2', separator: meta.dimensionSeparator }, key.slice(cut + 1), meta.shape.length);
      const inGrid = index?.every((c, d) => c * (meta.chunks[d] ?? 1) < Math.max(meta.shape[d] ?? 0, 1));
      if (index && inGrid) return { dir, index };
    }
    if (cut <= 0) return undefined;
  }
}

/** Absolute paths and paths relative to the references file become file:// URLs (remote references: URLs relative to theirs); URLs stay. */
function resolveUrl(url: string, base: string): string {
  if (/^https?:\/\//i.test(base) && !/^[a-zA-Z][a-zA-Z0-9+.-]*:\/\//.test(url)) return new URL(url, base).href; // relative to remote references
  if (/^[a-zA-Z][a-zA-Z0-9+.-]*:\/\//.test(url)) return url.startsWith('file://') ? pathToFileURL(fileURLToPath(url)).href : url;
  return pathToFileURL(path.resolve(base, url)).href;
}

type LocalInfo = { readonly size: number; readonly mtime: Date };

/** Size and modification time of a local file, once per file; null when it does not exist. */
async function localInfo(url: string, cache: Map<string, LocalInfo | null>): Promise<LocalInfo | null> {
  let info = cache.get(url);
  if (info === undefined) {
    try {
      const s = await stat(fileURLToPath(url));
      info = s.isFile() ? { size: s.size, mtime: s.mtime } : null;
    } catch {
      info = null;
    }
    cache.set(url, info);
  }
  return info;
}
