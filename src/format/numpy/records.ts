// Structured (record) dtypes. In memory a structured array is its records as raw bytes (a
// Uint8Array, itemSize lanes per element, fields at their NumPy offsets in the stored byte
// order) so selections and chunk I/O treat it like any fixed-size type. These functions turn
// records into one array per field (in the field's memory form, byte order resolved; a
// sub-array field holds `count` values per record, C order) and back.
import { floeError } from '../../errors.ts';
import { buildCodecChain, type CodecChain } from '../codecs/pipeline.ts';
import type { ArrayData } from '../zarr/data-types.ts';
import { defaultFillValue } from '../zarr/fill-value.ts';
import { bytesCodecFor } from './chunk-codec.ts';
import type { NumpyField, NumpyStructuredType } from './dtype.ts';
import { decodeUcs4, encodeUcs4 } from './ucs4.ts';

export type FieldArrays = Record<string, ArrayData>;

export function splitRecords(dtype: NumpyStructuredType, records: Uint8Array, n: number): FieldArrays {
  if (records.length !== n * dtype.itemSize) {
    throw floeError('INVALID_ARGUMENT', `${n} records of ${dtype.itemSize} bytes need ${n * dtype.itemSize} bytes, got ${records.length}`);
  }
  const out: FieldArrays = {};
  for (const field of dtype.fields) {
    const size = field.type.itemSize * field.count;
    const bytes = new Uint8Array(n * size);
    for (let i = 0; i < n; i++) {
      const at = i * dtype.itemSize + field.offset;
      bytes.set(records.subarray(at, at + size), i * size);
    }
    const values = n * field.count;
    out[field.name] = field.type.kind === 'unicode'
      ? decodeUcs4(bytes, values, field.type.itemSize / 4, field.type.byteOrder === 'little')
      : fieldChain(field, values).decode(bytes).data;
  }
  return out;
}

export function joinRecords(dtype: NumpyStructuredType, fields: FieldArrays, n: number): Uint8Array {
  const records = new Uint8Array(n * dtype.itemSize);
  for (const field of dtype.fields) {
    const data = fields[field.name];
    if (!data) throw floeError('INVALID_ARGUMENT', `field ${JSON.stringify(field.name)} is missing; the dtype has ${dtype.fields.map((f) => f.name).join(', ')}`);
    const values = n * field.count;
    const lanes = field.type.dataType.lanes;
    if (data.length !== values * lanes) throw floeError('INVALID_ARGUMENT', `field ${JSON.stringify(field.name)} holds ${data.length} values, expected ${values * lanes}`);
    const want = field.type.dataType.allocate(0).constructor;
    if (data.constructor !== want) throw floeError('INVALID_ARGUMENT', `field ${JSON.stringify(field.name)} takes a ${want.name}, got ${data.constructor.name}`);
    const bytes = field.type.kind === 'unicode'
      ? encodeUcs4(data as unknown[], field.type.itemSize / 4, field.type.byteOrder === 'little')
      : fieldChain(field, values).encode({ data, shape: [values], stride: [1] });
    const size = field.type.itemSize * field.count;
    for (let i = 0; i < n; i++) records.set(bytes.subarray(i * size, (i + 1) * size), i * dtype.itemSize + field.offset);
  }
  return records;
}

/** Records in `fields`: the first field's values divided by what one record holds of it. */
export function recordCount(dtype: NumpyStructuredType, fields: FieldArrays): number {
  const [name, first] = Object.entries(fields)[0] ?? [];
  if (first === undefined) return 0;
  const field = dtype.fields.find((f) => f.name === name);
  return field ? first.length / (field.type.dataType.lanes * field.count) : 0;
}

function fieldChain(field: NumpyField, n: number): CodecChain {
  const dataType = field.type.dataType;
  return buildCodecChain([bytesCodecFor(field.type)], { shape: [n], dataType, fillValue: defaultFillValue(dataType) });
}
