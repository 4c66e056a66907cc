// A codec chain built from zarr.json's `codecs`: array->array codecs, exactly one array->bytes
// codec, then bytes->bytes codecs. Decoding runs the chain backwards.
import { floeError, isFloeError } from '../../errors.ts';
import { copyFromChunk } from '../zarr/projection.ts';
import type { ArrayToArrayCodec, ArrayToBytesCodec, ChunkSpec } from './array-codecs.ts';
import type { CodecChain, ScratchBuffer, ShardingCodec } from './codec-chain.ts';
import { ZARR_V3_CODEC_NAMES, zarrV3Implementation } from './registry.ts';
import type { BytesToBytesCodec, CodecMetadata } from './types.ts';

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
  const a2b = arrayToBytes;
  const innerSpec = current;
  // Decoding runs the chains backwards; the first bytes codec may decode into the scratch buffer.
  const [firstBytesCodec, ...laterBytesCodecs] = bytesCodecs;
  const laterBytesBackwards = laterBytesCodecs.reverse();
  const arrayStepsBackwards = [...arraySteps].reverse();
  const sharding = arrayCodecs.length === 0 && bytesCodecs.length === 0 && a2b.name === 'sharding_indexed' ? (a2b as ShardingCodec) : undefined;

  return {
    spec,
    arrayCodecs,
    arrayToBytes: a2b,
    bytesCodecs,
    sharding,
    decode(bytes, scratch) {
      let b = bytes;
      for (const c of laterBytesBackwards) b = c.decode(b);
      if (firstBytesCodec) b = decodeFirst(firstBytesCodec, b, scratch, a2b.computeEncodedSize?.(innerSpec));
      let array = a2b.decode(b, innerSpec);
      for (const { codec, input } of arrayStepsBackwards) array = codec.decode(array, input);
      return array;
    },
    decodeRegion(bytes, projections, dst, scratch) {
      if (sharding) sharding.decodeRegion(bytes, projections, dst, scratch);
      else copyFromChunk(this.decode(bytes, scratch), projections, dst, spec.dataType.lanes);
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
    toJSON: () => [...arrayCodecs.map((c) => c.toJSON()), a2b.toJSON(), ...bytesCodecs.map((c) => c.toJSON())],
  };
}

/** The last bytes->bytes step: straight into scratch when the codec can and the size is known. */
function decodeFirst(codec: BytesToBytesCodec, bytes: Uint8Array, scratch: ScratchBuffer | undefined, size: number | undefined): Uint8Array {
  if (!scratch || size === undefined || !codec.decodeInto) return codec.decode(bytes);
  const out = scratch.take(size);
  const n = codec.decodeInto(bytes, out);
  return n < 0 ? codec.decode(bytes) : out.subarray(0, n);
}

type AnyCodec = ArrayToArrayCodec | ArrayToBytesCodec | BytesToBytesCodec;

/**
 * Builds one codec through the registry (once per chain, not per chunk). `where` names the list
 * holding `meta`, `nested` the place of any codec list inside it.
 */
function makeCodec(meta: CodecMetadata, spec: ChunkSpec, where: string, nested: string): AnyCodec {
  const entry = zarrV3Implementation(meta.name);
  if (!entry) {
    throw floeError('UNSUPPORTED', `codec "${meta.name}" is not supported; Floe implements ${ZARR_V3_CODEC_NAMES.join(', ')}`, { where });
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
