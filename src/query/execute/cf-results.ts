// Query results under `decode: 'cf'` (loaded with the first such query): each array's stored
// values become physical ones by its CF attributes (docs/cf.md), a time variable's also dates on
// its calendar. Packed or masked values read box by box decode inside the chunk reads (the
// engine's fused decoding, as `ZarrArray.get`); results assembled from cached units of the stored
// type (the decoded-chunk cache is shared with undecoded queries) decode each unit's part as it
// is copied into place. Time variables (dates beside the numbers) and results that keep their
// stored values (which need the stored result anyway) are decoded after the read, in one pass.
import type { ZarrArray } from '../../engine/array.ts';
import type { CfDate } from '../../format/cf/cf-date.ts';
import { decodeTime } from '../../format/cf/time.ts';
import { copyDecoded } from '../../format/cf/region.ts';
import { valueKernel } from '../../format/cf/values.ts';
import { applyValueCoding, decodedDataType, reinterpret } from '../../format/cf/variable.ts';
import { dot } from '../../engine/indexing.ts';
import { slice } from '../../engine/selection.ts';
import { isVariableLength, type ArrayData, type TypedArray } from '../../format/zarr/data-types.ts';
import { cStrides, copyStrided, product, type NdArray, type StridedView } from '../../format/zarr/ndarray.ts';
import { copyFromChunk, type ChunkProjection } from '../../format/zarr/projection.ts';
import type { ArrayResult, CfResult } from '../result-types.ts';

/**
 * Whether the array's values can decode inside its chunk reads (`get(..., { decode: 'cf' })`,
 * no stored-type copy of the result): values that become float32/float64 (packed or masked),
 * not time variables (their result keeps the decoded numbers beside the dates).
 */
export async function decodesInRead(array: ZarrArray): Promise<boolean> {
  if (isVariableLength(array.dataType)) return false;
  const variable = await array.cfVariable();
  return variable.values.output !== undefined && !variable.time;
}

/**
 * Reads boxes of the result decoded in the chunk reads (see decodesInRead): one box is the
 * result itself; several are each read decoded and copied into their place.
 */
export async function readDecodedBoxes(array: ZarrArray, boxes: readonly ReadBox[], resultShape: readonly number[], signal: AbortSignal | undefined): Promise<TypedArray> {
  const read = async (box: ReadBox) => (await array.get(box.runs.map((r) => slice(r.start, r.start + (r.count - 1) * r.step + 1, r.step)), { decode: 'cf', signal })).data as TypedArray;
  if (boxes.length === 1) return read(boxes[0]!);
  const n = product(resultShape);
  const out = (await array.cfVariable()).values.output === 'float32' ? new Float32Array(n) : new Float64Array(n);
  const stride = cStrides(resultShape);
  for (const box of boxes) {
    const counts = box.runs.map((r) => r.count);
    const part = await read(box);
    copyStrided({ data: part, offset: 0, stride: cStrides(counts) }, { data: out, offset: dot(box.outStart, stride), stride }, counts, 1);
  }
  return out;
}

/** How a decoding query puts units of the stored type into a result of the decoded type. */
export interface UnitDecoder {
  allocate(n: number): TypedArray;
  copy(unit: NdArray, ps: readonly ChunkProjection[], dst: StridedView): void;
}

/**
 * For a result read unit by unit from cached units of the stored type (see decodesInRead): each
 * unit's selected part is taken into a scratch of the stored type (reused: the copies of one
 * query run one at a time) and decoded from there into its place, with the reads' kernel.
 */
export async function unitDecoder(array: ZarrArray): Promise<UnitDecoder> {
  const coding = (await array.cfVariable()).values;
  const kernel = valueKernel(coding);
  let scratch: TypedArray | undefined;
  return {
    allocate: (n) => (coding.output === 'float32' ? new Float32Array(n) : new Float64Array(n)),
    copy: (unit, ps, dst) => {
      const counts = ps.map((p) => p.count);
      const n = product(counts);
      if (scratch === undefined || scratch.length < n) scratch = array.dataType.allocate(n) as TypedArray;
      const region = scratch.subarray(0, n);
      copyFromChunk(unit, ps, { data: region, offset: 0, stride: cStrides(counts) }, 1);
      copyDecoded(kernel, reinterpret(region, coding.dataType), counts, dst);
    },
  };
}

/** A box of a query's result: runs per dimension and where it starts in the result. */
interface ReadBox {
  readonly runs: readonly { readonly start: number; readonly step: number; readonly count: number }[];
  readonly outStart: readonly number[];
}

/**
 * Decodes one array's result; `keepStored` keeps the stored values beside the decoded ones.
 * `decodedInRead`: the values were decoded by the read (readDecodedBoxes); only the result's
 * description changes.
 */
export async function decodeResult(array: ZarrArray, result: ArrayResult, keepStored: boolean, decodedInRead = false): Promise<ArrayResult> {
  const data = result.data;
  // Strings, bytes and vlen-array elements have no CF decoding.
  if (!ArrayBuffer.isView(data) || result.elementDtype !== undefined) return result;
  const variable = await array.cfVariable();
  if (decodedInRead) return { ...result, dtype: decodedDataType(variable, result.dtype), cf: { storedDtype: result.dtype, variable } };
  // An array CF leaves as it is (no packing, missing values, _Unsigned, time, duration or flags) reads as without decoding.
  const coding = variable.values;
  const untouched = coding.output === undefined && coding.dataType === result.dtype && !variable.time && !variable.duration && !variable.metadata.flags;
  if (untouched) return result;
  const decoded = applyValueCoding(variable.values, data as TypedArray);
  const time = variable.time;
  const cf: { -readonly [K in keyof CfResult]: CfResult[K] } = {
    storedDtype: result.dtype,
    variable,
    ...(keepStored ? { stored: data as ArrayData } : {}),
  };
  if (time) {
    const dates = new Array<CfDate | null>(decoded.length);
    for (let i = 0; i < decoded.length; i++) dates[i] = decodeTime(time, decoded[i]!, array.path);
    cf.dates = dates;
  }
  return { ...result, dtype: decodedDataType(variable, result.dtype), data: decoded, cf };
}
