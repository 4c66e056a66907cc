// `get(selection, { decode: 'cf' })` (loaded with the first such read): the array's CF decoding
// (src/format/cf) fused into the chunk reads. Each chunk's selected region is read into a scratch
// of the stored type and decoded from there straight into its place in a result of the decoded
// type, so no stored-type copy of the whole result is ever made. A pooled read (a big one, once
// the decode-pool workers run) hands each chunk and the coding to a worker, which decodes both
// into the shared result with the same kernel (src/format/cf/region.ts); chunks no worker takes
// decode here. Time variables become CfDates (objects: made from the decoded numbers after the
// read, in this thread), flag labels are looked up on demand. docs/cf.md describes every rule.
import { floeError } from '../errors.ts';
import type { CfDate } from '../format/cf/cf-date.ts';
import { flagLabels } from '../format/cf/metadata.ts';
import { decodeTime } from '../format/cf/time.ts';
import { copyDecoded } from '../format/cf/region.ts';
import { valueKernel, type CfValueCoding } from '../format/cf/values.ts';
import { cfVariable, reinterpret, type CfVariable } from '../format/cf/variable.ts';
import type { JsonValue } from '../format/json.ts';
import type { ArrayData, DataType, TypedArray } from '../format/zarr/data-types.ts';
import { cStrides, product, type NdArray } from '../format/zarr/ndarray.ts';
import { sharedResultBuffer } from './shared-results.ts';
import type { View } from './chunk-io.ts';

/** A read's result under `decode: 'cf'`: physical values, or CfDates (null where missing) for a time variable. */
export interface CfNdArray {
  data: TypedArray | (CfDate | null)[];
  shape: number[];
  stride: number[];
  /** What was decoded and how (units, calendar, flags, structured metadata) and what was not (`warnings`). */
  cf: CfVariable;
  /** With `flag_meanings`: the meanings a value carries (docs/cf.md, "Flags"). */
  flagLabels?: (value: number | bigint) => string[];
}

/** How `ZarrArray.read` hands chunk regions to a decoding read instead of copying them into its result. */
export interface ReadSink {
  /** The result of `n` elements; `shared`: over shared memory (where the host has it), for a pooled read's workers. */
  allocate(n: number, shared: boolean): ArrayData;
  /**
   * Reads one chunk's region (through `read`, into a view it chooses) and puts it at `dst`. In a
   * pooled read, `offload` hands the chunk and the decoding to a worker, which writes the decoded
   * values into `dst` itself; it resolves false when no worker can take the chunk.
   */
  job(counts: readonly number[], dst: View, read: (into: View) => Promise<void>, offload?: (cf: CfValueCoding) => Promise<boolean>): Promise<void>;
}

/** What decides an array's CF decoding: its attributes, type and (v2) fill value. */
export interface CfDescribeInput {
  readonly path: string;
  readonly attributes: Readonly<Record<string, JsonValue>>;
  readonly dataType: DataType;
  /** A Zarr v2 array's fill value; undefined for v3 arrays and v2's null. */
  readonly zarrFill: unknown;
  /** A bounds variable's parent's units and calendar (CF 7.1). */
  readonly inherit?: { readonly units?: JsonValue | undefined; readonly calendar?: JsonValue | undefined } | undefined;
}

/** The array's CF decoding, worked out from its attributes (`ZarrArray.cfVariable`). */
export function describeCf(input: CfDescribeInput): CfVariable {
  const fill = input.zarrFill;
  return cfVariable({
    attributes: input.attributes,
    dataType: input.dataType.name,
    ...(typeof fill === 'number' || typeof fill === 'bigint' ? { zarrFill: fill } : {}),
    ...(input.inherit ? { inherit: input.inherit } : {}),
    where: input.path,
  });
}

export interface CfReadInput extends CfDescribeInput {
  /** The caller's result (CfGetOptions.out): the decoded type's, else refused. */
  readonly out?: TypedArray | undefined;
  readonly read: (sink: ReadSink | undefined) => Promise<NdArray>;
}

export async function readCf(input: CfReadInput): Promise<CfNdArray> {
  const { path, dataType } = input;
  const variable = describeCf(input);
  const coding = variable.values;
  const { out } = input;
  if (out !== undefined && (coding.output === undefined || variable.time || out.constructor !== (coding.output === 'float32' ? Float32Array : Float64Array))) {
    const want = coding.output === undefined || variable.time ? 'takes no `out` (its values do not decode to floats, or are times)' : `decodes to ${coding.output}: pass a ${coding.output === 'float32' ? 'Float32Array' : 'Float64Array'} as out`;
    throw floeError('INVALID_ARGUMENT', `decode: 'cf' of this array ${want}; or drop \`out\` (docs/cf.md)`, { where: path });
  }
  let result: NdArray;
  if (coding.output === undefined) {
    result = await input.read(undefined);
    if (!Array.isArray(result.data)) result = { ...result, data: reinterpret(result.data, coding.dataType) };
  } else {
    const kernel = valueKernel(coding);
    const Out = coding.output === 'float32' ? Float32Array : Float64Array;
    // Scratch buffers go back to a free list after their chunk is decoded: as many exist as
    // chunks are in flight (the read's concurrency), not one per chunk.
    const free: TypedArray[] = [];
    result = await input.read({
      allocate: (n, shared) => (shared ? new (Out as new (b: ArrayBufferLike) => TypedArray)(sharedResultBuffer(n * Out.BYTES_PER_ELEMENT)) : new Out(n)),
      job: async (counts, dst, read, offload) => {
        if (offload && (await offload(coding))) return;
        const n = product(counts);
        let buffer = free.pop();
        if (buffer === undefined || buffer.length < n) buffer = dataType.allocate(n) as TypedArray;
        try {
          const scratch = buffer.length === n ? buffer : buffer.subarray(0, n);
          await read({ data: scratch, offset: 0, stride: cStrides(counts) });
          copyDecoded(kernel, reinterpret(scratch, coding.dataType), counts, dst);
        } finally {
          free.push(buffer);
        }
      },
    });
  }
  const { shape, stride } = result;
  const time = variable.time;
  const flags = variable.metadata.flags;
  if (!time || Array.isArray(result.data)) {
    const labels = flags ? { flagLabels: (value: number | bigint) => flagLabels(flags, value) } : {};
    return { data: result.data as TypedArray, shape, stride, cf: variable, ...labels };
  }
  const values = result.data as TypedArray;
  const dates = new Array<CfDate | null>(values.length);
  for (let i = 0; i < values.length; i++) dates[i] = decodeTime(time, values[i]!, path);
  return { data: dates, shape, stride, cf: variable };
}
