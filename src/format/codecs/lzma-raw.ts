// Raw LZMA streams (Python's lzma FORMAT_RAW, numcodecs LZMA format 3): no container, so the
// filter chain in compression_opts is the only description of the data. A chain is zero or more
// delta filters followed by LZMA1 or LZMA2; encoding runs it first to last, decoding in reverse.
//
// The encoders come from @napi-rs/lzma (lzma-rs), which writes LZMA2 as stored (uncompressed)
// chunks and LZMA1 as literals only, with lc=3, lp=0, pb=2. Neither refers back into the
// dictionary, so any reader's dictionary size works. LZMA1 decodes only with the properties it
// was written with, so other lc/lp/pb values go to Floe's own literal-only encoder (lzma1-encoder.ts).
import { napiLzma } from './native-lzma.ts';
import { floeError } from '../../errors.ts';
import { corrupt, invalidConfig, shown } from './bytes-codec-support.ts';
import { DecodedSizeLimitError } from './decoded-size.ts';
import { argumentAt } from './checked-index.ts';
import { encodeLzma1Literals } from './lzma1-encoder.ts';
import { applyFilters, decodeLzma2, FILTER_DELTA, FILTER_LZMA2, lzma2Extent } from './lzma-xz.ts';

const NAME = 'lzma';
// 0x4000000000000001 does not survive JSON as a double: it arrives as 2^62.
export const FILTER_LZMA1 = 2 ** 62;
// liblzma preset -> dictionary size (lc=3, lp=0, pb=2 for every preset).
const PRESET_DICT = [18, 20, 21, 22, 22, 23, 23, 24, 25, 26].map((log) => 2 ** log);
const MIN_DICT = 4096;
/** The LZMA1 properties the native encoder always writes, and its props byte ((pb*5+lp)*9+lc). */
const ENCODER_PROPS = { lc: 3, lp: 0, pb: 2 } as const;
const ENCODER_PROPS_BYTE = 0x5d;
const ALONE_HEADER = 13;
/** How far the native decoder got when a stated size was not met (lzma-rs's message). */
const PROBE_REACHED = /but decompressed to (\d+)/;
/** The .lzma header's decoded size when the encoder did not state one. */
const UNKNOWN_SIZE = 0xffff_ffff_ffff_ffffn;

export interface FilterSpec {
  readonly id: number;
  readonly options: Readonly<Record<string, unknown>>;
}

/** Refuses chains Python's lzma would refuse: delta filters, then one LZMA1/LZMA2 filter last. */
export function checkChain(chain: readonly FilterSpec[]): void {
  const last = finalFilter(chain);
  if (last.id !== FILTER_LZMA1 && last.id !== FILTER_LZMA2) throw invalidConfig(NAME, `a filter chain must end with LZMA1 or LZMA2, got id ${last.id}`);
  for (const f of chain.slice(0, -1)) {
    if (f.id !== FILTER_DELTA) throw invalidConfig(NAME, `only delta filters may precede the last filter, got id ${f.id}`);
    deltaDistance(f);
  }
  if (last.id === FILTER_LZMA1) lzma1Props(last);
  dictSize(last);
}

/** The chain's last filter (the LZMA1 or LZMA2 one, once checkChain passed). */
function finalFilter(chain: readonly FilterSpec[]): FilterSpec {
  const last = chain[chain.length - 1];
  if (!last) throw invalidConfig(NAME, '"filters" is empty; a chain ends with an LZMA1 or LZMA2 filter');
  return last;
}

/** Decodes a raw stream described by `chain`, refusing (before decoding) output past maxBytes. */
export function decodeRaw(chain: readonly FilterSpec[], data: Uint8Array, maxBytes?: number): Uint8Array {
  const last = finalFilter(chain);
  let decoded: Uint8Array;
  if (last.id === FILTER_LZMA2) {
    const { end, unpacked } = lzma2Extent(data, 0);
    if (maxBytes !== undefined && unpacked > maxBytes) throw new DecodedSizeLimitError(maxBytes, unpacked);
    decoded = decodeLzma2(data.subarray(0, end), unpacked);
  } else {
    // The "alone" decoder reads a raw stream given the properties it lacks; size unknown.
    const header = new Uint8Array(ALONE_HEADER).fill(0xff);
    const { lc, lp, pb } = lzma1Props(last);
    header[0] = (pb * 5 + lp) * 9 + lc;
    new DataView(header.buffer).setUint32(1, dictSize(last), true);
    decoded = decodeAlone(Buffer.concat([header, data]), maxBytes);
  }
  const deltas = chain.slice(0, -1).map((f) => ({ id: FILTER_DELTA, props: Uint8Array.of(deltaDistance(f) - 1) }));
  return applyFilters(decoded, [...deltas, { id: FILTER_LZMA2, props: new Uint8Array() }]);
}

/**
 * Decodes an .lzma ("alone") stream, holding it to maxBytes. A header stating the decoded size is
 * checked first. Without one (Python's encoder never writes it) the native decoder has no output
 * cap and no streaming API, so it first runs with the header's size set to maxBytes + 1. It stops
 * near there (within one match, 273 bytes), and its error says how far it got: past the limit is
 * refused; short of it means the stream ends first, and a second run with the size unknown decodes
 * it, stopping at the same place. The price, two decodes, is paid only by LZMA1 streams without a
 * size. An error that does not say how far it got is CORRUPT_OBJECT: no unbounded second run.
 */
export function decodeAlone(stream: Uint8Array, maxBytes: number | undefined): Uint8Array {
  const native = napiLzma().lzma;
  if (maxBytes === undefined) return native.decompressSync(stream);
  if (stream.length < ALONE_HEADER) throw corrupt(NAME, `${stream.length} bytes is shorter than the 13-byte .lzma header`);
  const view = new DataView(stream.buffer, stream.byteOffset, stream.byteLength);
  const stated = view.getBigUint64(5, true);
  if (stated !== UNKNOWN_SIZE) {
    if (stated > BigInt(maxBytes)) throw new DecodedSizeLimitError(maxBytes, Number(stated));
    return native.decompressSync(stream);
  }
  const probe = Buffer.from(stream);
  const probeSize = maxBytes + 1;
  probe.writeBigUInt64LE(BigInt(probeSize), 5);
  try {
    native.decompressSync(probe);
  } catch (err) {
    const reached = PROBE_REACHED.exec(err instanceof Error ? err.message : '');
    if (!reached) throw corrupt(NAME, err instanceof Error ? err.message : String(err), err);
    if (Number(reached[1]) < probeSize) {
      const decoded = native.decompressSync(stream);
      if (decoded.length > maxBytes) throw new DecodedSizeLimitError(maxBytes); // cannot happen: same stream, same stop
      return decoded;
    }
  }
  throw new DecodedSizeLimitError(maxBytes);
}

export function encodeRaw(chain: readonly FilterSpec[], data: Uint8Array): Uint8Array {
  const last = finalFilter(chain);
  let payload = data;
  for (const f of chain.slice(0, -1)) payload = deltaEncode(payload, deltaDistance(f));
  return last.id === FILTER_LZMA2 ? encodeLzma2(last, payload) : encodeLzma1(last, payload);
}

function encodeLzma2(filter: FilterSpec, payload: Uint8Array): Uint8Array {
  const stream = napiLzma().lzma2.compressSync(payload);
  // Compressed chunks may refer back as far as the encoder's window: only safe within the reader's.
  if (storedChunksOnly(stream) || payload.length <= dictSize(filter)) return stream;
  throw floeError('UNSUPPORTED', `lzma: the native LZMA2 encoder wrote compressed chunks whose matches may reach beyond the filter's ${dictSize(filter)}-byte dictionary; use format 1 (xz)`);
}

function encodeLzma1(filter: FilterSpec, payload: Uint8Array): Uint8Array {
  const { lc, lp, pb } = lzma1Props(filter);
  if (lc !== ENCODER_PROPS.lc || lp !== ENCODER_PROPS.lp || pb !== ENCODER_PROPS.pb) return encodeLzma1Literals(payload, { lc, lp, pb });
  const alone = napiLzma().lzma.compressSync(payload);
  const propsByte = alone[0];
  if (propsByte !== ENCODER_PROPS_BYTE) {
    const wrote = propsByte === undefined ? 'no properties byte' : `properties byte 0x${propsByte.toString(16)}`;
    throw floeError('UNSUPPORTED', `lzma: the native LZMA1 encoder wrote ${wrote}, not 0x5d; use format 1 (xz)`);
  }
  // The "alone" header (props, dictionary, size) dropped: a raw stream ends with its end marker.
  return alone.subarray(ALONE_HEADER);
}

/** True when every LZMA2 chunk is stored uncompressed (control byte 1 or 2), so nothing refers back. */
function storedChunksOnly(stream: Uint8Array): boolean {
  for (let p = 0; p < stream.length;) {
    const control = stream[p];
    if (control === 0) return true;
    if (control !== 1 && control !== 2) return false;
    const high = stream[p + 1];
    const low = stream[p + 2];
    if (high === undefined || low === undefined) return false; // a truncated chunk header: not provably safe
    p += 3 + ((high << 8) | low) + 1;
  }
  return false;
}

function deltaEncode(data: Uint8Array, distance: number): Uint8Array {
  const out = data.slice();
  // Reads go through a DataView, which checks its own range; distance <= i < data.length.
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  for (let i = out.length - 1; i >= distance; i--) out[i] = (view.getUint8(i) - view.getUint8(i - distance)) & 255;
  return out;
}

function deltaDistance(filter: FilterSpec): number {
  const dist = optionInt(filter, 'dist', 1);
  if (dist < 1 || dist > 256) throw invalidConfig(NAME, `delta filter "dist" must be 1-256, got ${dist}`);
  return dist;
}

function lzma1Props(filter: FilterSpec): { lc: number; lp: number; pb: number } {
  const props = { lc: optionInt(filter, 'lc', 3), lp: optionInt(filter, 'lp', 0), pb: optionInt(filter, 'pb', 2) };
  // liblzma (so Python, compressing or decompressing) refuses lc + lp > 4 for LZMA1 too.
  if (props.lc + props.lp > 4 || props.pb > 4) throw invalidConfig(NAME, `LZMA1 needs lc + lp <= 4 and pb <= 4, got ${shown(props)}`);
  return props;
}

export function dictSize(filter: FilterSpec): number {
  if (filter.options.dict_size !== undefined && filter.options.dict_size !== null) {
    const size = optionInt(filter, 'dict_size', 0);
    if (size < MIN_DICT) throw invalidConfig(NAME, `"dict_size" must be at least ${MIN_DICT} (liblzma's minimum), got ${size}`);
    return size;
  }
  const preset = optionInt(filter, 'preset', 6) & 0x1f; // strip the "extreme" flag
  return argumentAt(PRESET_DICT, Math.min(preset, 9), 'lzma preset'); // 0..9, the table's indices
}

/** A filter option: an integer in [0, 2^32 - 1] (liblzma's uint32 fields), or `fallback` when absent. */
function optionInt(filter: FilterSpec, key: string, fallback: number): number {
  const value = filter.options[key];
  if (value === undefined || value === null) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > 0xffffffff) {
    throw invalidConfig(NAME, `filter option "${key}" must be an integer in [0, 4294967295], got ${shown(value)}`);
  }
  return value;
}
