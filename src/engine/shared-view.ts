// A shared-memory result view as it crosses to a decode worker. V8's serializer (Node 20) sends a
// typed array's offset and length as 32-bit numbers: a view of 4 GiB arrives empty (the worker's
// writes into it vanish: a silently wrong result) and one past 2 GiB fails to deserialize (the
// message is dropped). A SharedArrayBuffer crosses whole, so the view goes as its buffer, element
// type, offset and length, and the worker makes the view again.
import { floeError } from '../errors.ts';
import type { TypedArray } from '../format/zarr/data-types.ts';
import type { StridedView } from '../format/zarr/ndarray.ts';

/** A typed array over shared memory, as posted to a worker. */
export interface WireArray {
  readonly buffer: ArrayBufferLike;
  readonly type: string;
  readonly byteOffset: number;
  readonly length: number;
  /**
   * Names the buffer for the worker: each message gives it a new wrapper object of the same
   * memory, so identity cannot tell one result from the next (worker-port.ts collects on a new one).
   */
  readonly bufferId: number;
}

export interface WireView extends Omit<StridedView, 'data'> {
  readonly data: WireArray;
}

const TYPES: Readonly<Record<string, new (buffer: ArrayBufferLike, byteOffset: number, length: number) => TypedArray>> = {
  Int8Array, Uint8Array, Int16Array, Uint16Array, Int32Array, Uint32Array, Float32Array, Float64Array, BigInt64Array, BigUint64Array,
};

const bufferIds = new WeakMap<ArrayBufferLike, number>();
let lastBufferId = 0;

function idOf(buffer: ArrayBufferLike): number {
  let id = bufferIds.get(buffer);
  if (id === undefined) bufferIds.set(buffer, (id = ++lastBufferId));
  return id;
}

export function toWire(view: StridedView): WireView {
  const data = view.data as TypedArray;
  return { ...view, data: { buffer: data.buffer, type: data.constructor.name, byteOffset: data.byteOffset, length: data.length, bufferId: idOf(data.buffer) } };
}

export function fromWire(view: WireView): StridedView {
  const { buffer, type, byteOffset, length } = view.data;
  const Ctor = TYPES[type];
  if (Ctor === undefined) throw floeError('STORAGE_ERROR', `a decode worker was sent a result view of unknown type ${type}`);
  return { ...view, data: new Ctor(buffer, byteOffset, length) };
}
