// float16 in memory. One representation a program can rely on whatever Node runs it: a
// Float32Array by default, on every Node (exact: every half value is a float32), and a
// Float16Array when a read asks for one (`float16: 'Float16Array'`) where the runtime has the
// global (Node 24+; found by looking for it, never by version). Asked for where it is missing,
// the read fails with UNSUPPORTED instead of quietly handing back the other type.
import { floeError } from '../../errors.ts';
import { runtimeName } from '../../platform/host.ts';

/**
 * The part of ES2025's Float16Array that Floe hands out, declared here: @types/node 20 and the
 * ES2023 lib predate it, and a program on an older lib still gets a usable type.
 */
export interface Float16Data extends ArrayLike<number>, Iterable<number> {
  readonly BYTES_PER_ELEMENT: number;
  readonly buffer: ArrayBufferLike;
  readonly byteOffset: number;
  readonly byteLength: number;
  [index: number]: number;
}

interface Float16ArrayConstructor {
  new (length: number): Float16Data;
  from(source: ArrayLike<number>): Float16Data;
}

/** How float16 values come out of a read. */
export type Float16Representation = 'Float32Array' | 'Float16Array';

function float16ArrayConstructor(): Float16ArrayConstructor | undefined {
  const ctor = (globalThis as { Float16Array?: unknown }).Float16Array;
  return typeof ctor === 'function' ? (ctor as Float16ArrayConstructor) : undefined;
}

/** Whether this runtime has a global Float16Array. */
export function hasFloat16Array(): boolean {
  return float16ArrayConstructor() !== undefined;
}

/** Throws UNSUPPORTED when `representation` asks for a Float16Array this runtime lacks. */
export function checkFloat16Representation(representation: Float16Representation | undefined, where?: string): void {
  if (representation === undefined || representation === 'Float32Array') return;
  if (representation !== 'Float16Array') {
    throw floeError('INVALID_ARGUMENT', `float16 must be 'Float32Array' or 'Float16Array', got ${JSON.stringify(representation)}`, { where });
  }
  if (!hasFloat16Array()) {
    throw floeError('UNSUPPORTED', `float16 as Float16Array was asked for, but ${runtimeName()} has no Float16Array (Node 24 and newer have it); leave the option out to read float16 as Float32Array, exact on every Node`, { where });
  }
}

/** The same values in a Float16Array (exact: they came from float16). */
export function toFloat16Array(data: Float32Array): Float16Data {
  const ctor = float16ArrayConstructor();
  if (!ctor) throw floeError('UNSUPPORTED', `${runtimeName()} has no Float16Array`);
  return ctor.from(data);
}

/** Whether `data` is a Float16Array (false wherever the runtime has none). */
export function isFloat16Array(data: unknown): data is Float16Data {
  const ctor = float16ArrayConstructor();
  return ctor !== undefined && data instanceof (ctor as unknown as abstract new (...args: never[]) => unknown);
}
