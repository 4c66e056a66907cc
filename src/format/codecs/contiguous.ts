// Turning any strided view into a C-contiguous array (a copy only when needed).
import { cStrides, copyStrided, product, type NdArray } from '../zarr/ndarray.ts';
import type { DataType } from '../zarr/data-types.ts';

export function isCContiguous(array: NdArray): boolean {
  const expected = cStrides(array.shape);
  return array.shape.every((d, i) => d === 1 || array.stride[i] === expected[i]);
}

export function toCContiguous(array: NdArray, dataType: DataType): NdArray {
  const n = product(array.shape);
  if (isCContiguous(array) && array.data.length === n * dataType.lanes) return array;
  const out: NdArray = { data: dataType.allocate(n), shape: [...array.shape], stride: cStrides(array.shape) };
  copyStrided({ data: array.data, offset: 0, stride: array.stride }, { data: out.data, offset: 0, stride: out.stride }, array.shape, dataType.lanes);
  return out;
}
