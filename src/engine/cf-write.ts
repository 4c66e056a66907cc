// `set(selection, value, { encode: 'cf' })` (loaded with the first such write): physical values
// or dates encoded into the array's stored numbers (src/format/cf/encode.ts) before the ordinary
// write. docs/cf.md, "Encoding".
import { floeError } from '../errors.ts';
import type { CfDate } from '../format/cf/cf-date.ts';
import { encodeValues, type CfWriteValues } from '../format/cf/encode.ts';
import { cfVariable, reinterpret } from '../format/cf/variable.ts';
import type { JsonValue } from '../format/json.ts';
import type { DataType } from '../format/zarr/data-types.ts';
import type { WriteValue } from './write-value.ts';

/** A value `encode: 'cf'` writes: physical numbers or dates, flat (C order) or with a shape, or one value for the whole selection. */
export type CfWriteValue = CfWriteValues | { readonly data: CfWriteValues; readonly shape: number[]; readonly stride: number[] } | number | string | CfDate | Date | null;

export interface CfWriteInput {
  readonly path: string;
  readonly attributes: Readonly<Record<string, JsonValue>>;
  readonly dataType: DataType;
  readonly zarrFill: unknown;
}

export function encodeForWrite(input: CfWriteInput, value: CfWriteValue): WriteValue {
  const fill = input.zarrFill;
  const variable = cfVariable({
    attributes: input.attributes, dataType: input.dataType.name, where: input.path,
    ...(typeof fill === 'number' || typeof fill === 'bigint' ? { zarrFill: fill } : {}),
  });
  const encode = (values: CfWriteValues) => reinterpret(encodeValues(variable, values, input.path), input.dataType.name);
  if (value === null || typeof value === 'number' || typeof value === 'string' || value instanceof Date || isSingleDate(value)) {
    return encode([value] as CfWriteValues)[0]!;
  }
  if (isShaped(value)) return { data: encode(value.data) as WriteValue & ArrayLike<number>, shape: value.shape, stride: value.stride } as WriteValue;
  if (typeof (value as ArrayLike<unknown>).length !== 'number') throw floeError('INVALID_ARGUMENT', "encode: 'cf' writes numbers, CfDates, Dates or null, flat or as { data, shape, stride }", { where: input.path });
  return encode(value as CfWriteValues);
}

function isSingleDate(value: unknown): value is CfDate {
  return typeof value === 'object' && value !== null && !('length' in value) && !('data' in value);
}

function isShaped(value: unknown): value is { data: CfWriteValues; shape: number[]; stride: number[] } {
  return typeof value === 'object' && value !== null && 'data' in value && 'shape' in value;
}
