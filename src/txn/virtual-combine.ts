// Combining many scanned files into one set of arrays along a dimension (`virtualize` with
// `concat`). Works on the scanner-neutral plans (virtual-plan.ts), so NetCDF-3, kerchunk and any
// later scanner combine alike.
//
// - Existing dimension (`concat: { dim }`): every variable whose dimension names include `dim` is
//   joined along that axis, in the order the files were given; the others must agree across files
//   and are taken from the first. Every file's chunks must tile the joined grid: the same chunk
//   shape in every file, and every file but the last a whole number of chunks long along `dim`
//   (a regular grid cannot hold a short chunk in the middle). NetCDF-3 record variables have one
//   record per chunk, so they always tile; a fixed dimension chunked whole tiles only when every
//   file has the same length. Anything else is refused naming the file, the variable and the field.
// - New dimension (`concat: { dim, new: true }`): every variable except coordinate variables gets
//   a leading dimension `dim`, one chunk (one file) per position; all files must agree in shape.
// - Coordinate variables (1-D, named after their dimension) are stored as real chunks, read from
//   the files once, so queries by label never touch the archive. The joined one is re-chunked into
//   large chunks when its only codec is `bytes` (the raw values are concatenated, so each file's
//   own chunking does not matter: netCDF-4 chunks a record coordinate by 512), else each file's
//   encoded chunks are copied as they are (and must tile like any other variable).
import { floeError } from '../errors.ts';
import type { AbortOptions } from '../engine/storage/types.ts';
import { coalesceRanges } from '../engine/storage/coalesce.ts';
import { parseDataType } from '../format/zarr/data-types.ts';
import type { ArrayMetadataInput } from '../format/zarr/metadata.ts';
import type { VirtualChunkSpec } from './session-store.ts';
import type { PlannedArray, PlannedSource, SkippedVariable } from './virtual-plan.ts';

/** How {@link VirtualizeOptions.concat} joins the files. */
export interface ConcatOptions {
  /** The dimension to join along. */
  readonly dim: string;
  /** A new leading dimension (one position per file) rather than one the variables have. */
  readonly new?: boolean;
}

/** Reads byte ranges of a location (file:// or http(s)://), for the coordinate values stored as real chunks. */
export type RangeReader = (location: string, ranges: readonly { offset: number; length: number }[], options?: AbortOptions) => Promise<Uint8Array[]>;

/** Largest chunk of a re-chunked coordinate (bytes). */
const COORDINATE_CHUNK_BYTES = 8 * 1024 * 1024;

type Stored = { readonly index: readonly number[]; readonly bytes: Uint8Array };

const mismatch = (file: string, variable: string, field: string, got: unknown, first: unknown, firstFile: string, hint = ''): never => {
  throw floeError('INVALID_ARGUMENT', `cannot combine ${file}: variable ${variable}: its ${field} ${show(got)} differs from ${show(first)} in ${firstFile}${hint}`, { where: file });
};
const show = (v: unknown) => JSON.stringify(v, (_k, x: unknown) => (typeof x === 'bigint' ? x.toString() : x));
const same = (a: unknown, b: unknown) => show(a) === show(b);

const isCoordinate = (a: PlannedArray) => a.metadata.dimensionNames?.length === 1 && a.metadata.dimensionNames[0] === a.relativePath;

/** One plan with every file's arrays joined along `concat.dim`; see the module comment. */
export async function combinePlans(planned: readonly PlannedSource[], concat: ConcatOptions, read: RangeReader, options?: AbortOptions): Promise<PlannedSource> {
  const first = planned[0];
  if (!first) throw floeError('INVALID_ARGUMENT', 'virtualize needs at least one file');
  const dim = concat.dim;
  if (dim === '') throw floeError('INVALID_ARGUMENT', 'concat needs a dimension name');
  const skipped: SkippedVariable[] = planned.flatMap((p) => p.skipped);
  const skippedNames = new Set(skipped.map((s) => s.variable));
  for (const p of planned) {
    for (const a of p.arrays) if (skippedNames.has(a.relativePath)) skipped.push({ source: p.source, variable: a.variable, reason: 'skipped in another of the files combined' });
  }
  const byFile = planned.map((p) => new Map(p.arrays.filter((a) => !skippedNames.has(a.relativePath)).map((a) => [a.relativePath, a])));
  const names = [...(byFile[0]?.keys() ?? [])];
  for (const [i, p] of planned.entries()) {
    const have = byFile[i] as Map<string, PlannedArray>;
    const extra = [...have.keys()].find((n) => !names.includes(n));
    if (extra !== undefined) throw floeError('INVALID_ARGUMENT', `cannot combine ${p.source}: it has the variable ${extra}, which ${first.source} has not; combine files with the same variables`, { where: p.source });
    const absent = names.find((n) => !have.has(n));
    if (absent !== undefined) throw floeError('INVALID_ARGUMENT', `cannot combine ${p.source}: it has no variable ${absent}, which ${first.source} has; combine files with the same variables`, { where: p.source });
  }
  const along = names.filter((n) => (byFile[0]?.get(n)?.metadata.dimensionNames ?? []).includes(dim));
  if (concat.new && along.length > 0) {
    throw floeError('INVALID_ARGUMENT', `cannot combine along a new dimension ${dim}: ${first.source}: variable ${along[0]} already has a dimension ${dim}; pick another name, or combine along the existing one (without new)`, { where: first.source });
  }
  if (!concat.new && along.length === 0) {
    throw floeError('INVALID_ARGUMENT', `cannot combine along ${dim}: no variable of ${first.source} has that dimension (${[...new Set(names.flatMap((n) => byFile[0]?.get(n)?.metadata.dimensionNames ?? []))].filter(Boolean).join(', ') || 'none'} are); name one of them, or pass new to add it`, { where: first.source });
  }

  const arrays: PlannedArray[] = [];
  for (const name of names) {
    const parts = byFile.map((m) => m.get(name) as PlannedArray);
    const head = parts[0] as PlannedArray;
    // Fields every file must agree on, whatever the variable.
    for (const [i, a] of parts.entries()) {
      const file = (planned[i] as PlannedSource).source;
      for (const field of ['dataType', 'codecs', 'fillValue', 'dimensionNames', 'chunkKeyEncoding'] as const) {
        if (!same(a.metadata[field], head.metadata[field])) mismatch(file, name, fieldName(field), a.metadata[field], head.metadata[field], first.source);
      }
      if (a.metadata.shape.length !== head.metadata.shape.length) mismatch(file, name, 'rank', a.metadata.shape.length, head.metadata.shape.length, first.source);
    }
    const axis = concat.new ? (isCoordinate(head) ? -1 : 0) : (head.metadata.dimensionNames ?? []).indexOf(dim);
    let combined: PlannedArray;
    if (axis < 0) {
      for (const [i, a] of parts.entries()) {
        const file = (planned[i] as PlannedSource).source;
        if (!same(a.metadata.shape, head.metadata.shape)) mismatch(file, name, 'shape', a.metadata.shape, head.metadata.shape, first.source);
        if (!same(a.metadata.chunkShape, head.metadata.chunkShape)) mismatch(file, name, 'chunk shape', a.metadata.chunkShape, head.metadata.chunkShape, first.source);
      }
      combined = head;
    } else if (concat.new) {
      for (const [i, a] of parts.entries()) {
        const file = (planned[i] as PlannedSource).source;
        if (!same(a.metadata.shape, head.metadata.shape)) mismatch(file, name, 'shape', a.metadata.shape, head.metadata.shape, first.source, `; along a new dimension every file's ${name} must have the same shape`);
        if (!same(a.metadata.chunkShape, head.metadata.chunkShape)) mismatch(file, name, 'chunk shape', a.metadata.chunkShape, head.metadata.chunkShape, first.source);
      }
      combined = {
        variable: head.variable,
        relativePath: head.relativePath,
        metadata: {
          ...head.metadata,
          shape: [parts.length, ...head.metadata.shape],
          chunkShape: [1, ...head.metadata.chunkShape],
          dimensionNames: [dim, ...(head.metadata.dimensionNames ?? head.metadata.shape.map(() => null))],
        },
        refs: parts.flatMap((a, i) => a.refs.map((r) => ({ ...r, index: [i, ...r.index] }))),
        stored: parts.flatMap((a, i) => a.stored.map((s) => ({ index: [i, ...s.index], bytes: s.bytes }))),
      };
    } else if (isCoordinate(head) && rawValues(head)) {
      // The joined coordinate is stored, not referenced: its values are concatenated whatever each
      // file's chunking (netCDF-4 chunks a 1-D record variable far longer than a file's records).
      combined = await joinCoordinate(parts, planned, read, options);
    } else {
      combined = joinAlong(parts, planned, name, axis, dim);
    }
    if (isCoordinate(combined)) combined = await materialize(combined, read, options);
    arrays.push(combined);
  }
  return { source: first.source, format: first.format, groups: first.groups, arrays, skipped };
}

const fieldName = (f: string) => ({ dataType: 'data type', codecs: 'codecs', fillValue: 'fill value', dimensionNames: 'dimension names', chunkKeyEncoding: 'chunk key encoding' })[f] ?? f;

/** `parts` (one per file) joined along `axis`. */
function joinAlong(parts: readonly PlannedArray[], planned: readonly PlannedSource[], name: string, axis: number, dim: string): PlannedArray {
  const head = parts[0] as PlannedArray;
  const firstFile = (planned[0] as PlannedSource).source;
  const chunk = head.metadata.chunkShape[axis] ?? 1;
  let start = 0;
  const refs: VirtualChunkSpec[] = [];
  const stored: Stored[] = [];
  for (const [i, a] of parts.entries()) {
    const file = (planned[i] as PlannedSource).source;
    for (let d = 0; d < head.metadata.shape.length; d++) {
      if (d !== axis && a.metadata.shape[d] !== head.metadata.shape[d]) mismatch(file, name, `length along ${head.metadata.dimensionNames?.[d] ?? `axis ${d}`}`, a.metadata.shape[d], head.metadata.shape[d], firstFile);
    }
    if (!same(a.metadata.chunkShape, head.metadata.chunkShape)) {
      mismatch(file, name, 'chunk shape', a.metadata.chunkShape, head.metadata.chunkShape, firstFile, `; files joined along ${dim} must be chunked alike (NetCDF-3: join along the record dimension, or give every file the same length along ${dim})`);
    }
    const length = a.metadata.shape[axis] ?? 0;
    if (i < parts.length - 1 && length % chunk !== 0) {
      throw floeError('INVALID_ARGUMENT',
        `cannot combine ${file}: variable ${name}: its length along ${dim} (${length}) is not a multiple of its chunk length there (${chunk}), and only the last file may end in a partial chunk (a regular chunk grid cannot hold one in the middle); reorder the files or combine along another dimension`,
        { where: file });
    }
    const shift = start / chunk;
    for (const r of a.refs) refs.push({ ...r, index: r.index.map((c, d) => (d === axis ? c + shift : c)) });
    for (const s of a.stored) stored.push({ index: s.index.map((c, d) => (d === axis ? c + shift : c)), bytes: s.bytes });
    start += length;
  }
  const shape = head.metadata.shape.map((n, d) => (d === axis ? start : n));
  return { variable: head.variable, relativePath: head.relativePath, metadata: { ...head.metadata, shape }, refs, stored };
}

/** A coordinate variable with every chunk stored in the repository (read from the files now). */
async function materialize(a: PlannedArray, read: RangeReader, options?: AbortOptions): Promise<PlannedArray> {
  const bytesOf = new Map<string, Uint8Array>();
  const byLocation = new Map<string, VirtualChunkSpec[]>();
  for (const r of a.refs) {
    let list = byLocation.get(r.location);
    if (!list) byLocation.set(r.location, (list = []));
    list.push(r);
  }
  for (const [location, refs] of byLocation) {
    // Nearby ranges of one file in one read (NetCDF-3 record coordinates are a few bytes a record apart).
    const merged = coalesceRanges(refs, { gapBytes: 64 * 1024, maxOverread: 64 });
    const got = await read(location, merged, options);
    for (const [k, m] of merged.entries()) {
      const bytes = got[k] as Uint8Array;
      if (bytes.length < m.length) {
        throw floeError('CORRUPT_OBJECT', `cannot read the coordinate ${a.variable} from ${location}: ${bytes.length} of ${m.length} bytes at byte ${m.offset} (the file is shorter than it was when scanned)`, { where: location });
      }
      for (const p of m.pieces) bytesOf.set(`${location}#${p.offset}+${p.length}`, bytes.subarray(p.offset - m.offset, p.offset - m.offset + p.length));
    }
  }
  const encoded: Stored[] = [...a.stored];
  for (const r of a.refs) encoded.push({ index: r.index, bytes: bytesOf.get(`${r.location}#${r.offset}+${r.length}`) as Uint8Array });
  const length = a.metadata.shape[0] ?? 0;
  const all = rawValues(a) && length > 0 ? valuesOf({ ...a, stored: encoded }) : undefined;
  // Compressed, or a chunk missing (read as the fill value) or short: each file's chunks as they are.
  return all ? rechunked(a, all) : { ...a, refs: [], stored: encoded };
}

/** Whether a 1-D array's chunks are its raw values (the `bytes` codec alone, a fixed-size type). */
function rawValues(a: PlannedArray): boolean {
  const codecs = a.metadata.codecs ?? [];
  return codecs.length === 1 && codecs[0]?.name === 'bytes' && parseDataType(a.metadata.dataType, a.variable).itemSize > 0;
}

/** The values of a 1-D raw array whose chunks are all stored, concatenated; undefined if any is missing or short. */
function valuesOf(a: PlannedArray): Uint8Array | undefined {
  const size = parseDataType(a.metadata.dataType, a.variable).itemSize;
  const length = a.metadata.shape[0] ?? 0;
  const chunk = a.metadata.chunkShape[0] ?? 1;
  const all = new Uint8Array(length * size);
  let covered = 0;
  for (const s of a.stored) {
    const at = (s.index[0] ?? 0) * chunk;
    const n = Math.min(chunk, length - at) * size;
    if (at >= length || s.bytes.length < n) continue;
    all.set(s.bytes.subarray(0, n), at * size);
    covered += n / size;
  }
  return covered === length ? all : undefined;
}

/** Each file's coordinate read now and their values joined into one stored array. */
async function joinCoordinate(parts: readonly PlannedArray[], planned: readonly PlannedSource[], read: RangeReader, options?: AbortOptions): Promise<PlannedArray> {
  const head = parts[0] as PlannedArray;
  const values: Uint8Array[] = [];
  for (const [i, part] of parts.entries()) {
    const got = valuesOf(await materialize(part, read, options));
    if (!got) {
      const file = (planned[i] as PlannedSource).source;
      throw floeError('INVALID_ARGUMENT', `cannot combine ${file}: its coordinate ${head.variable} has chunks that are not stored (no values to join); write the coordinate's values into the file`, { where: file });
    }
    values.push(got);
  }
  const all = new Uint8Array(values.reduce((n, v) => n + v.length, 0));
  let at = 0;
  for (const v of values) {
    all.set(v, at);
    at += v.length;
  }
  const size = parseDataType(head.metadata.dataType, head.variable).itemSize;
  return rechunked({ ...head, metadata: { ...head.metadata, shape: [all.length / size] } }, all);
}

/** A 1-D array of `all`'s values stored in chunks of up to COORDINATE_CHUNK_BYTES. */
function rechunked(a: PlannedArray, all: Uint8Array): PlannedArray {
  const size = parseDataType(a.metadata.dataType, a.variable).itemSize;
  const length = all.length / size;
  const newChunk = Math.max(1, Math.min(length, Math.floor(COORDINATE_CHUNK_BYTES / size)));
  const stored: Stored[] = [];
  for (let c = 0; c * newChunk < length; c++) {
    const bytes = new Uint8Array(newChunk * size);
    bytes.set(all.subarray(c * newChunk * size, Math.min(length, (c + 1) * newChunk) * size));
    stored.push({ index: [c], bytes });
  }
  const metadata: ArrayMetadataInput = { ...a.metadata, chunkShape: [newChunk] };
  return { ...a, metadata, refs: [], stored };
}
