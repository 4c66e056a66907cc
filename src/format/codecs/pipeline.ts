// A codec chain built from zarr.json's `codecs`: array->array codecs, exactly one array->bytes
// codec, then bytes->bytes codecs. Decoding runs the chain backwards.
import { floeError, isFloeError } from '../../errors.ts';
import { copyFromChunk } from '../zarr/projection.ts';
import type { ArrayToArrayCodec, ArrayToBytesCodec, ChunkSpec } from './array-codecs.ts';
import type { CodecChain, ScratchBuffer, ShardingCodec } from './codec-chain.ts';
import { unavailableReason, ZARR_V3_CODEC_NAMES, zarrV3Implementation } from './registry.ts';
import type { BytesToBytesCodec, CodecMetadata, DecodeLimits } from './types.ts';
import { resourceLimits, type ResourceLimits } from '../limits.ts';
import { checkChunkBytes } from '../zarr/chunk-size.ts';
import { rowRuns, storedAsInMemory } from '../zarr/row-runs.ts';

// The chain's contract lives in codec-chain.ts (sharding.ts needs it without this module).
export { ScratchBuffer, type CodecChain } from './codec-chain.ts';

/**
 * `where` names the codec list in errors; callers that know the document pass its key, such as
 * "a/zarr.json: codecs". A sharding codec's nested lists report as "<where>[i].configuration".
 */
export function buildCodecChain(codecs: readonly CodecMetadata[], spec: ChunkSpec, where = 'codecs'): CodecChain {
  const arrayCodecs: ArrayToArrayCodec[] = [];
  // Each array -> array codec with the spec of its input (its decode's output).
  const arraySteps: { codec: ArrayToArrayCodec; input: ChunkSpec }[] = [];
  let current = spec;
  let arrayToBytes: ArrayToBytesCodec | undefined;
  const bytesCodecs: BytesToBytesCodec[] = [];
  for (const [i, meta] of codecs.entries()) {
    const codec = makeCodec(meta, current, where, `${where}[${i}].configuration`);
    if (codec.kind === 'array_to_array') {
      if (arrayToBytes) misplaced(meta, 'an array -> array codec must come before the array -> bytes codec', where);
      arrayCodecs.push(codec);
      arraySteps.push({ codec, input: current });
      current = codec.resolveSpec(current);
    } else if (codec.kind === 'array_to_bytes') {
      if (arrayToBytes) misplaced(meta, 'there must be exactly one array -> bytes codec', where);
      arrayToBytes = codec;
    } else {
      if (!arrayToBytes) misplaced(meta, 'a bytes -> bytes codec must come after the array -> bytes codec', where);
      bytesCodecs.push(codec);
    }
  }
  if (!arrayToBytes) {
    throw floeError('INVALID_METADATA', 'codecs must include an array -> bytes codec such as "bytes"', { where });
  }
  return chainOf(spec, arraySteps, arrayToBytes, current, bytesCodecs, where);
}

/** The chain of the codecs buildCodecChain checked; `innerSpec` is the array -> bytes codec's. */
function chainOf(spec: ChunkSpec, arraySteps: readonly { codec: ArrayToArrayCodec; input: ChunkSpec }[], a2b: ArrayToBytesCodec, innerSpec: ChunkSpec, bytesCodecs: readonly BytesToBytesCodec[], where: string): CodecChain {
  const arrayCodecs = arraySteps.map((s) => s.codec);
  const sharding = arrayCodecs.length === 0 && bytesCodecs.length === 0 && a2b.name === 'sharding_indexed' ? (a2b as ShardingCodec) : undefined;
  // A shard read alone is decoded inner chunk by inner chunk: only its inner chunks' size is held
  // to MAX_CHUNK_BYTES. Anything else is decoded whole.
  if (!sharding) checkChunkBytes(spec.shape, spec.dataType, where);
  // Decoding runs the chains backwards; the first bytes codec may decode into the scratch buffer.
  const firstBytesCodec = bytesCodecs[0];
  const arrayStepsBackwards = [...arraySteps].reverse();
  const bounds = new DecodeBounds(a2b, innerSpec, bytesCodecs);
  const intoRuns = rowsDecoder(spec, arrayCodecs, a2b, bytesCodecs);

  const asyncCodecs = bytesCodecs.some((c) => c.decodeAsync);
  let rest: CodecChain | undefined;
  return {
    spec,
    arrayCodecs,
    arrayToBytes: a2b,
    bytesCodecs,
    sharding,
    asyncBytes: asyncCodecs
      ? {
          async decode(bytes) {
            const limits = bounds.current();
            let b = bytes;
            for (const step of limits.laterBackwards) b = await decodeEither(step.codec, b, step.limits);
            return firstBytesCodec ? decodeEither(firstBytesCodec, b, limits.first) : b;
          },
          get rest() {
            return (rest ??= chainOf(spec, arraySteps, a2b, innerSpec, [], where));
          },
        }
      : undefined,
    decode(bytes, scratch) {
      const limits = bounds.current();
      let b = bytes;
      for (const step of limits.laterBackwards) b = step.codec.decode(b, step.limits);
      if (firstBytesCodec) b = decodeFirst(firstBytesCodec, b, scratch, a2b.computeEncodedSize?.(innerSpec), limits.first);
      let array = a2b.decode(b, innerSpec);
      for (const { codec, input } of arrayStepsBackwards) array = codec.decode(array, input);
      return array;
    },
    decodeRegion(bytes, projections, dst, scratch) {
      if (sharding) return sharding.decodeRegion(bytes, projections, dst, scratch);
      const runs = intoRuns && rowRuns(spec, projections, dst);
      if (runs && intoRuns?.(bytes, runs)) return;
      copyFromChunk(this.decode(bytes, scratch), projections, dst, spec.dataType.lanes);
    },
    encode(array) {
      let a = array;
      for (const { codec, input } of arraySteps) a = codec.encode(a, input);
      let b = a2b.encode(a, innerSpec);
      for (const c of bytesCodecs) b = c.encode(b);
      return b;
    },
    encodedSize() {
      let n = a2b.computeEncodedSize?.(innerSpec);
      for (const c of bytesCodecs) {
        if (n === undefined || !c.computeEncodedSize) return undefined;
        n = c.computeEncodedSize(n);
      }
      return n;
    },
    encodedSizeBound: () => bounds.current().encoded,
    toJSON: () => [...arrayCodecs.map((c) => c.toJSON()), a2b.toJSON(), ...bytesCodecs.map((c) => c.toJSON())],
  };
}

/** What the decoders of one chain may produce. */
interface ChainLimits {
  /** The first bytes codec's (the last to decode). */
  readonly first: DecodeLimits;
  /** The other bytes codecs in decoding order, each with its output bound. */
  readonly laterBackwards: readonly { readonly codec: BytesToBytesCodec; readonly limits: DecodeLimits }[];
  /** The bound of the whole chain's encoded output. */
  readonly encoded: number;
}

/**
 * The decoded size each bytes codec of a chain may produce, worked out from the chunk spec once:
 * the array -> bytes codec's exact size (or bound) for the first, then each codec's encoded bound
 * of what the one before it produces. Recomputed only when configureLimits changes the limits
 * (a variable-length bound depends on them); each decode reuses the same objects.
 */
class DecodeBounds {
  private basis: ResourceLimits | undefined;
  private limits: ChainLimits | undefined;

  constructor(
    private readonly a2b: ArrayToBytesCodec,
    private readonly spec: ChunkSpec,
    private readonly bytesCodecs: readonly BytesToBytesCodec[],
  ) {}

  current(): ChainLimits {
    const basis = resourceLimits();
    if (this.limits && this.basis === basis) return this.limits;
    let size = this.a2b.computeEncodedSize?.(this.spec) ?? this.a2b.encodedSizeBound?.(this.spec) ?? basis.variableChunkBytes;
    const first: DecodeLimits = Object.freeze({ maxBytes: size });
    // Each codec's output (its input when encoding) is bounded by what the codec before it wrote.
    const steps: { codec: BytesToBytesCodec; limits: DecodeLimits }[] = [];
    for (const [i, codec] of this.bytesCodecs.entries()) {
      if (i > 0) steps.push({ codec, limits: Object.freeze({ maxBytes: size }) });
      size = codec.computeEncodedSize?.(size) ?? compressedBound(size);
    }
    this.basis = basis;
    this.limits = { first, laterBackwards: steps.reverse(), encoded: size };
    return this.limits;
  }
}

/**
 * The most a compressor can write for `n` input bytes: every one Floe reads stays far inside
 * n + n/8 + 64 KiB (zstd and deflate add under 1%, bz2 and xz a few hundred bytes plus ~1%, Blosc
 * 16 bytes plus a few per block).
 */
export function compressedBound(n: number): number {
  return n + Math.ceil(n / 8) + 65536;
}

/**
 * A compressor alone after a `bytes` codec that stores elements as memory holds them, when it
 * can decode straight into a result's rows (Blosc): the decodeRegion path with no chunk buffer.
 */
function rowsDecoder(spec: ChunkSpec, arrayCodecs: readonly ArrayToArrayCodec[], a2b: ArrayToBytesCodec, bytesCodecs: readonly BytesToBytesCodec[]): BytesToBytesCodec['decodeIntoRuns'] {
  const [only] = bytesCodecs;
  if (bytesCodecs.length !== 1 || !only?.decodeIntoRuns || !storedAsInMemory(spec, arrayCodecs, a2b)) return undefined;
  return only.decodeIntoRuns.bind(only);
}

/** A bytes codec's decodeAsync where it has one, else its decode. */
async function decodeEither(codec: BytesToBytesCodec, bytes: Uint8Array, limits: DecodeLimits): Promise<Uint8Array> {
  return codec.decodeAsync ? codec.decodeAsync(bytes, limits) : codec.decode(bytes, limits);
}

/** The last bytes->bytes step: straight into scratch when the codec can and the size is known. */
function decodeFirst(codec: BytesToBytesCodec, bytes: Uint8Array, scratch: ScratchBuffer | undefined, size: number | undefined, limits: DecodeLimits): Uint8Array {
  if (!scratch || size === undefined || !codec.decodeInto) return codec.decode(bytes, limits);
  const out = scratch.take(size);
  const n = codec.decodeInto(bytes, out);
  return n < 0 ? codec.decode(bytes, limits) : out.subarray(0, n);
}

type AnyCodec = ArrayToArrayCodec | ArrayToBytesCodec | BytesToBytesCodec;

/**
 * Builds one codec through the registry (once per chain, not per chunk). `where` names the list
 * holding `meta`, `nested` the place of any codec list inside it.
 */
function makeCodec(meta: CodecMetadata, spec: ChunkSpec, where: string, nested: string): AnyCodec {
  const entry = zarrV3Implementation(meta.name);
  if (!entry) {
    const reason = unavailableReason(meta.name);
    throw floeError('UNSUPPORTED', `codec "${meta.name}" is not supported${reason ? ` (${reason})` : ''}; Floe implements ${ZARR_V3_CODEC_NAMES.join(', ')}`, { where });
  }
  const config = meta.configuration;
  try {
    if (entry.kind === 'bytes_to_bytes') return entry.zarrV3(config, { itemSize: Math.max(1, spec.dataType.itemSize) });
    return entry.zarrV3(config, { spec, buildChain: (inner, innerSpec) => buildCodecChain(inner, innerSpec, nested) });
  } catch (err) {
    if (isFloeError(err) && !err.where) {
      throw floeError(err.code, `codec "${meta.name}": ${err.message}`, { where, cause: err, details: err.details });
    }
    throw err;
  }
}

function misplaced(meta: CodecMetadata, why: string, where: string): never {
  throw floeError('INVALID_METADATA', `codec "${meta.name}": ${why}`, { where });
}
