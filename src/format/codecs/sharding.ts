// `sharding_indexed`: many inner chunks in one object plus an index of (offset, nbytes) pairs.
// Besides whole-shard encode/decode it exposes the index layout so the engine can read only the
// index and the byte ranges of the inner chunks it needs.
import { floeError, isFloeError } from '../../errors.ts';
import { parseDataType } from '../zarr/data-types.ts';
import { parseFillValue } from '../zarr/fill-value.ts';
import { allEqual, cStrides, copyStrided, product, type NdArray } from '../zarr/ndarray.ts';
import type { ChunkSpec } from './array-codecs.ts';
import type { CodecChain, ShardIndex, ShardingCodec } from './codec-chain.ts';
import { fillRegion, forEachProduct, projectDim, shiftView } from '../zarr/projection.ts';
import type { CodecMetadata } from './types.ts';
import { shown } from './bytes-codec-support.ts';
import { argumentAt } from './checked-index.ts';
import { limitExceeded, MAX_INNER_CHUNKS } from '../limits.ts';
import { checkChunkBytes } from '../zarr/chunk-size.ts';
import type { ArrayCodecImplementation } from './codec-implementation.ts';

// The contracts live in codec-chain.ts, beside the chain they refer to.
export type { ShardIndex, ShardingCodec } from './codec-chain.ts';

/** Both fields at 2^64-1 mark an empty inner chunk. As a double that is exactly 2^64. */
const EMPTY = 2 ** 64;

type ChainBuilder = (codecs: readonly CodecMetadata[], spec: ChunkSpec) => CodecChain;

export const shardingEntry: ArrayCodecImplementation = {
  name: 'sharding_indexed',
  kind: 'array_to_bytes',
  capabilities: { decodeInto: false, boundedDecode: false, partialDecode: true, fixedEncodedSize: false },
  zarrV3: (configuration, { spec, buildChain }) => shardingCodec(configuration, spec, buildChain),
};

export function shardingCodec(config: Record<string, unknown> | undefined, shardSpec: ChunkSpec, build: ChainBuilder): ShardingCodec {
  const c = config ?? {};
  const innerChunkShape = parseInnerShape(c.chunk_shape, shardSpec.shape);
  const indexLocation = c.index_location ?? 'end';
  if (indexLocation !== 'start' && indexLocation !== 'end') {
    throw floeError('INVALID_METADATA', `index_location must be "start" or "end", got ${shown(indexLocation)}`);
  }
  const chunksPerShard = shardSpec.shape.map((s, i) => s / argumentAt(innerChunkShape, i, 'sharding chunk_shape'));
  const nChunks = product(chunksPerShard);
  if (nChunks > MAX_INNER_CHUNKS) {
    throw limitExceeded('inner-chunks', MAX_INNER_CHUNKS, `a shard of [${shardSpec.shape.join(', ')}] holds ${nChunks} inner chunks of [${innerChunkShape.join(', ')}], over the maximum of ${MAX_INNER_CHUNKS} (its index is read whole); use larger inner chunks`, { actual: nChunks });
  }
  const innerChain = build(codecList(c.codecs, 'codecs'), { ...shardSpec, shape: innerChunkShape });
  const indexSpec: ChunkSpec = {
    shape: [...chunksPerShard, 2],
    dataType: parseDataType('uint64'),
    fillValue: parseFillValue(parseDataType('uint64'), 0),
  };
  const indexChain = build(codecList(c.index_codecs, 'index_codecs'), indexSpec);
  const indexByteLength = indexChain.encodedSize();
  if (indexByteLength === undefined) {
    throw floeError('INVALID_METADATA', 'index_codecs must produce a fixed-size index (no compression); use bytes + crc32c');
  }
  const innerStrides = cStrides(chunksPerShard);
  const lanes = shardSpec.dataType.lanes;

  const decodeIndex = (bytes: Uint8Array, shardSize?: number): ShardIndex => {
    const innerBound = innerChain.encodedSizeBound();
    if (bytes.length !== indexByteLength) {
      throw floeError('CORRUPT_OBJECT', `shard index is ${bytes.length} bytes, expected ${indexByteLength}`);
    }
    const raw = indexChain.decode(bytes);
    const words = raw.data as BigUint64Array;
    const offsets = new Float64Array(nChunks);
    const lengths = new Float64Array(nChunks);
    for (let i = 0; i < nChunks; i++) {
      const offWord = words[i * 2];
      const lenWord = words[i * 2 + 1];
      if (offWord === undefined || lenWord === undefined) {
        throw floeError('CORRUPT_OBJECT', `shard index decodes to ${words.length} words, expected ${2 * nChunks}`);
      }
      const off = Number(offWord);
      const len = Number(lenWord);
      if (off === EMPTY && len === EMPTY) {
        offsets[i] = -1;
        lengths[i] = 0;
        continue;
      }
      if (shardSize !== undefined && off + len > shardSize) {
        throw floeError('CORRUPT_OBJECT', `shard index entry ${i} points at bytes ${off}..${off + len}, outside the ${shardSize}-byte shard`);
      }
      // Checked before any range is fetched: no inner chunk encodes to more than its bound.
      if (len > innerBound || off > Number.MAX_SAFE_INTEGER - len) {
        throw floeError('CORRUPT_OBJECT', `shard index entry ${i} claims ${len} bytes at offset ${off}; an inner chunk takes at most ${innerBound}`);
      }
      offsets[i] = off;
      lengths[i] = len;
    }
    return { offsets, lengths };
  };

  const indexOf = (bytes: Uint8Array): ShardIndex => {
    if (bytes.length < indexByteLength) {
      throw floeError('CORRUPT_OBJECT', `shard is ${bytes.length} bytes, shorter than its ${indexByteLength}-byte index`);
    }
    const indexBytes = indexLocation === 'end' ? bytes.subarray(bytes.length - indexByteLength) : bytes.subarray(0, indexByteLength);
    return decodeIndex(indexBytes, bytes.length);
  };

  const innerIndex = (coords: readonly number[]): number =>
    coords.reduce((acc, x, d) => acc + x * argumentAt(innerStrides, d, 'sharding: inner chunk coordinates'), 0);

  const decodeRegion: ShardingCodec['decodeRegion'] = (bytes, projections, dst, scratch) => {
    const index = indexOf(bytes);
    const inner = projections.map((p, d) =>
      projectDim({ start: p.start, step: p.step, count: p.count, drop: false }, argumentAt(innerChunkShape, d, 'sharding: region dimensions')),
    );
    forEachProduct(inner, (q) => {
      const view = shiftView(dst, q);
      const i = innerIndex(q.map((p) => p.chunk));
      const offset = argumentAt(index.offsets, i, 'sharding: inner chunk');
      if (offset < 0) {
        fillRegion(view, q.map((p) => p.count), shardSpec.fillValue.memory, lanes);
        return;
      }
      const part = bytes.subarray(offset, offset + argumentAt(index.lengths, i, 'sharding: inner chunk'));
      withInnerIndex(i, () => innerChain.decodeRegion(part, q, view, scratch));
    });
  };

  return {
    kind: 'array_to_bytes',
    name: 'sharding_indexed',
    innerChunkShape,
    chunksPerShard,
    indexLocation,
    indexByteLength,
    innerChain,
    decodeIndex,
    innerIndex,
    encodedSizeBound: () => indexByteLength + nChunks * innerChain.encodedSizeBound(),
    toJSON: () => ({
      name: 'sharding_indexed',
      configuration: {
        chunk_shape: [...innerChunkShape],
        codecs: innerChain.toJSON(),
        index_codecs: indexChain.toJSON(),
        index_location: indexLocation,
      },
    }) as unknown as CodecMetadata,

    decodeRegion,

    decode(bytes, spec) {
      checkChunkBytes(spec.shape, spec.dataType);
      const out: NdArray = { data: spec.dataType.allocate(product(spec.shape)), shape: [...spec.shape], stride: cStrides(spec.shape) };
      const whole = spec.shape.map((n) => ({ chunk: 0, start: 0, step: 1, count: n, outStart: 0 }));
      decodeRegion(bytes, whole, { data: out.data, offset: 0, stride: out.stride });
      return out;
    },

    encode(array, spec) {
      const parts: Uint8Array[] = [];
      const words = new BigUint64Array(nChunks * 2).fill(2n ** 64n - 1n);
      let offset = indexLocation === 'start' ? indexByteLength : 0;
      const scratch: NdArray = { data: spec.dataType.allocate(product(innerChunkShape)), shape: [...innerChunkShape], stride: cStrides(innerChunkShape) };
      forEachInner(chunksPerShard, (coords, i) => {
        const origin = coords.reduce(
          (acc, x, d) => acc + x * argumentAt(innerChunkShape, d, 'sharding: chunk rank') * argumentAt(array.stride, d, 'sharding: array rank'),
          0,
        );
        copyStrided({ data: array.data, offset: origin, stride: array.stride }, { data: scratch.data, offset: 0, stride: scratch.stride }, innerChunkShape, lanes);
        if (allEqual(scratch.data, spec.fillValue.memory)) return; // empty inner chunks are not stored
        const encoded = innerChain.encode(scratch);
        words[i * 2] = BigInt(offset);
        words[i * 2 + 1] = BigInt(encoded.length);
        parts.push(encoded);
        offset += encoded.length;
      });
      const index = indexChain.encode({ data: words, shape: [...chunksPerShard, 2], stride: cStrides([...chunksPerShard, 2]) });
      return concat(indexLocation === 'start' ? [index, ...parts] : [...parts, index]);
    },
  };
}

/** Names the inner chunk in codec errors. */
function withInnerIndex<T>(i: number, fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    if (isFloeError(err)) throw floeError(err.code, `inner chunk ${i}: ${err.message}`, { cause: err, details: err.details });
    throw err;
  }
}

/** Visits every grid position in C order with its flat index. */
export function forEachInner(grid: readonly number[], visit: (coords: number[], flat: number) => void): void {
  const n = product(grid);
  const coords = new Array<number>(grid.length).fill(0);
  for (let flat = 0; flat < n; flat++) {
    visit(coords, flat);
    // Odometer step: d < grid.length = coords.length.
    for (let d = grid.length - 1; d >= 0; d--) {
      const next = argumentAt(coords, d, 'forEachInner') + 1;
      if (next < argumentAt(grid, d, 'forEachInner')) {
        coords[d] = next;
        break;
      }
      coords[d] = 0;
    }
  }
}

export function concat(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let pos = 0;
  for (const p of parts) {
    out.set(p, pos);
    pos += p.length;
  }
  return out;
}

function parseInnerShape(value: unknown, shardShape: readonly number[]): number[] {
  const ok =
    Array.isArray(value) &&
    value.length === shardShape.length &&
    value.every((n, i) => {
      const whole = shardShape[i];
      return whole !== undefined && Number.isSafeInteger(n) && n > 0 && whole % n === 0;
    });
  if (!ok) {
    throw floeError('INVALID_METADATA', `sharding chunk_shape ${shown(value)} must have ${shardShape.length} positive entries that divide the shard shape [${shardShape.join(', ')}]`);
  }
  return value as number[];
}

function codecList(value: unknown, field: string): CodecMetadata[] {
  if (!Array.isArray(value) || value.length === 0) {
    throw floeError('INVALID_METADATA', `sharding ${field} must be a non-empty list of codecs`);
  }
  return value.map((v) => (typeof v === 'string' ? { name: v } : (v as CodecMetadata)));
}
