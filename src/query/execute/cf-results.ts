// Query results under `decode: 'cf'` (loaded with the first such query): each array's stored
// values become physical ones by its CF attributes (docs/cf.md), a time variable's also dates on
// its calendar. The values of a result are decoded after its chunks are read (the engine's fused
// decoding serves `ZarrArray.get`; a query's result is assembled from boxes and cached units of
// the stored type, which the decoded-chunk cache shares with undecoded queries).
import type { ZarrArray } from '../../engine/array.ts';
import type { CfDate } from '../../format/cf/cf-date.ts';
import { decodeTime } from '../../format/cf/time.ts';
import { applyValueCoding, decodedDataType } from '../../format/cf/variable.ts';
import type { ArrayData, TypedArray } from '../../format/zarr/data-types.ts';
import type { ArrayResult, CfResult } from '../result-types.ts';

/** Decodes one array's result; `keepStored` keeps the stored values beside the decoded ones. */
export async function decodeResult(array: ZarrArray, result: ArrayResult, keepStored: boolean): Promise<ArrayResult> {
  const data = result.data;
  // Strings, bytes and vlen-array elements have no CF decoding.
  if (!ArrayBuffer.isView(data) || result.elementDtype !== undefined) return result;
  const variable = await array.cfVariable();
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
