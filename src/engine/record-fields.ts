// Field-wise access to structured (record) arrays of Zarr v1 and v2: a selection read as one
// array per field, and written from one. Records themselves are raw bytes (format/numpy/records.ts).
import { floeError } from '../errors.ts';
import type { NumpyDataType, NumpyStructuredType } from '../format/numpy/dtype.ts';
import { joinRecords, recordCount, splitRecords, type FieldArrays } from '../format/numpy/records.ts';
import { product } from '../format/zarr/ndarray.ts';
import type { GetOptions, SetOptions, ZarrArray } from './array.ts';
import type { Selection } from './selection.ts';

/** A structured array's selection as one array per field. */
export async function getFields(array: ZarrArray, dtype: NumpyDataType, selection?: Selection, options?: GetOptions): Promise<{ shape: number[]; fields: FieldArrays }> {
  const records = structured(dtype, array.path);
  const result = await array.get(selection, options);
  return { shape: result.shape, fields: splitRecords(records, result.data as Uint8Array, product(result.shape)) };
}

/** Writes one array per field (C order, the selection's shape) into a structured array. */
export async function setFields(array: ZarrArray, dtype: NumpyDataType, selection: Selection | undefined, fields: FieldArrays, options?: SetOptions): Promise<void> {
  const records = structured(dtype, array.path);
  await array.set(selection, joinRecords(records, fields, recordCount(records, fields)), options);
}

function structured(dtype: NumpyDataType, where: string): NumpyStructuredType {
  if (dtype.kind !== 'structured') throw floeError('INVALID_ARGUMENT', `dtype ${JSON.stringify(dtype.json)} has no fields`, { where });
  return dtype;
}
