// Structured (record) dtypes. In memory a structured array is its records as raw bytes (a
// Uint8Array, itemSize lanes per element, fields at their NumPy offsets in the stored byte
// order) so selections and chunk I/O treat it like any fixed-size type. These functions turn
// records into one array per field (in the field's memory form, byte order resolved) and back.
import { floeError } from '../../errors.ts';
import { buildCodecChain, type CodecChain } from '../codecs/pipeline.ts';
import type { ArrayData } from '../zarr/data-types.ts';
import { defaultFillValue } from '../zarr/fill-value.ts';
import { bytesCodecFor } from './chunk-codec.ts';
import type { V1Field, V1StructuredType } from './dtype.ts';
import { decodeUcs4, encodeUcs4 } from './ucs4.ts';

export type FieldArrays = Record<string, ArrayData>;

export function splitRecords(dtype: V1StructuredType, records: Uint8Array, n: number): FieldArrays {
  if (records.length !== n * dtype.itemSize) {
    throw floeError('INVALID_ARGUMENT', `${n} records of ${dtype.itemSize} bytes need ${n * dtype.itemSize} bytes, got ${records.length}`);
  }
  const out: FieldArrays = {};
  for (const field of dtype.fields) {
    const size = field.type.itemSize;
    const bytes = new Uint8Array(n * size);
    for (let i = 0; i < n; i++) {
      const at = i * dtype.itemSize + field.offset;
      bytes.set(records.subarray(at, at + size), i * size);
    }
    out[field.name] = field.type.kind === 'unicode'
      ? decodeUcs4(bytes, n, size / 4, field.type.byteOrder === 'little')
      : fieldChain(field, n).decode(bytes).data;
  }
  return out;
}

export function joinRecords(dtype: V1StructuredType, fields: FieldArrays, n: number): Uint8Array {
  const records = new Uint8Array(n * dtype.itemSize);
  for (const field of dtype.fields) {
    const data = fields[field.name];
    if (!data) throw floeError('INVALID_ARGUMENT', `field ${JSON.stringify(field.name)} is missing; the dtype has ${dtype.fields.map((f) => f.name).join(', ')}`);
    const lanes = field.type.dataType.lanes;
    if (data.length !== n * lanes) throw floeError('INVALID_ARGUMENT', `field ${JSON.stringify(field.name)} holds ${data.length} values, expected ${n * lanes}`);
    const want = field.type.dataType.allocate(0).constructor;
    if (data.constructor !== want) throw floeError('INVALID_ARGUMENT', `field ${JSON.stringify(field.name)} takes a ${want.name}, got ${data.constructor.name}`);
    const bytes = field.type.kind === 'unicode'
      ? encodeUcs4(data as unknown[], field.type.itemSize / 4, field.type.byteOrder === 'little')
      : fieldChain(field, n).encode({ data, shape: [n], stride: [1] });
    const size = field.type.itemSize;
    for (let i = 0; i < n; i++) records.set(bytes.subarray(i * size, (i + 1) * size), i * dtype.itemSize + field.offset);
  }
  return records;
}

function fieldChain(field: V1Field, n: number): CodecChain {
  const dataType = field.type.dataType;
  return buildCodecChain([bytesCodecFor(field.type)], { shape: [n], dataType, fillValue: defaultFillValue(dataType) });
}
