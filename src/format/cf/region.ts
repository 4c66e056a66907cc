// CF value decoding of one chunk's selected region into its place in a decoded result: the step
// `get(..., { decode: 'cf' })` runs per chunk, in the calling thread (src/engine/cf-read.ts) or on
// a decode-pool worker (src/engine/decode-worker-main.ts, given the read's CfValueCoding: plain
// data, so it travels with the chunk). Both run the same kernel, so both give the same bits.
import type { CodecChain, ScratchBuffer } from '../codecs/codec-chain.ts';
import type { TypedArray } from '../zarr/data-types.ts';
import { cStrides, product, type StridedView } from '../zarr/ndarray.ts';
import type { ChunkProjection } from '../zarr/projection.ts';
import { reinterpret, valueKernel, type CfValueCoding, type ValueKernel } from './kernel.ts';

/** Decodes a C-ordered region (`counts`) of stored values `src` into the strided view `dst`, one innermost run at a time. */
export function copyDecoded(kernel: ValueKernel, src: TypedArray, counts: readonly number[], dst: StridedView): void {
  const rank = counts.length;
  const out = dst.data as TypedArray;
  if (rank === 0) {
    kernel(src, 0, out, dst.offset, 1);
    return;
  }
  const inner = counts[rank - 1]!;
  const innerStride = dst.stride[rank - 1]!;
  const runs = inner === 0 ? 0 : src.length / inner;
  const index = new Array<number>(rank - 1).fill(0);
  for (let run = 0, s = 0; run < runs; run++, s += inner) {
    let d = dst.offset;
    for (let k = 0; k < rank - 1; k++) d += index[k]! * dst.stride[k]!;
    if (innerStride === 1) kernel(src, s, out, d, inner);
    else for (let i = 0; i < inner; i++) kernel(src, s + i, out, d + i * innerStride, 1);
    for (let k = rank - 2; k >= 0; k--) {
      if (++index[k]! < counts[k]!) break;
      index[k] = 0;
    }
  }
}

// A worker decodes chunk after chunk of the same few codings: kernels and the stored-type scratch
// are kept (a fresh kernel closure would start unoptimised on every chunk).
const kernels = new Map<string, ValueKernel>();
let stored: TypedArray | undefined;

/**
 * Decodes an encoded chunk (`bytes`, with `chain`), takes the selected region (`projections`) in
 * the stored type and writes its CF-decoded values (`coding`) into `dst`.
 */
export function decodeCfRegion(chain: CodecChain, bytes: Uint8Array, projections: readonly ChunkProjection[], dst: StridedView, coding: CfValueCoding, scratch: ScratchBuffer): void {
  const key = JSON.stringify(coding);
  let kernel = kernels.get(key);
  if (kernel === undefined) {
    if (kernels.size > 16) kernels.clear();
    kernel = valueKernel(coding);
    kernels.set(key, kernel);
  }
  const counts = projections.map((p) => p.count);
  const n = product(counts);
  const sample = chain.spec.dataType.allocate(0) as TypedArray;
  if (stored === undefined || stored.constructor !== sample.constructor || stored.length < n) stored = chain.spec.dataType.allocate(n) as TypedArray;
  const region = stored.length === n ? stored : stored.subarray(0, n);
  chain.decodeRegion(bytes, projections, { data: region, offset: 0, stride: cStrides(counts) }, scratch);
  copyDecoded(kernel, reinterpret(region, coding.dataType), counts, dst);
}
