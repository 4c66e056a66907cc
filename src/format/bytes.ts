// Byte-array helpers. Node's Buffer overrides `slice` to return a view, so code that may receive
// a Buffer copies with these instead.
import { allocateOwnBytes, isSharedMemory, sameBytes } from '../platform/host.ts';

/**
 * A fresh copy of `bytes` as a plain Uint8Array owning its whole buffer. (`slice` would not do:
 * on a Buffer it is a view, and via the species constructor even a copy stays a Buffer.)
 */
export function copyBytes(bytes: Uint8Array): Uint8Array {
  return new Uint8Array(bytes);
}

type TypedArrayCtor<T> = new (source: T) => T;

/** A copy of a typed array of the same element type, never a view (a Buffer becomes a Uint8Array). */
export function copyTypedArray<T extends ArrayBufferView>(data: T): T {
  const Ctor = (data instanceof Uint8Array ? Uint8Array : data.constructor) as unknown as TypedArrayCtor<T>;
  return new Ctor(data);
}

/** Buffers made by {@link freshBytes}: each belongs to the one view made over it and its subviews. */
const freshBuffers = new WeakSet<ArrayBufferLike>();

/**
 * Uninitialised memory in a buffer of its own (never from Node's pool), for a result that hands
 * out a part of it (a compressor writes into room for its worst case and returns the part it
 * used). Its maker keeps no other reference, so whoever holds the result may transfer the buffer
 * to another thread whole, even though the view does not span it ({@link transferable}).
 */
export function freshBytes(size: number): Uint8Array {
  const bytes = allocateOwnBytes(size);
  freshBuffers.add(bytes.buffer);
  return bytes;
}

/** True when moving the view's buffer to another thread detaches nothing but this result. */
export function transferable(view: ArrayBufferView): boolean {
  return ownsWholeBuffer(view) || freshBuffers.has(view.buffer);
}

/** True when the view spans its whole, non-shared buffer, so transferring it loses nothing. */
export function ownsWholeBuffer(view: ArrayBufferView): boolean {
  return view.byteOffset === 0 && view.byteLength === view.buffer.byteLength && !isSharedMemory(view.buffer);
}

/** Whether two byte arrays hold the same bytes (length first, then content). */
export function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  return sameBytes(a, b);
}

/** The parts one after another in one new array of `total` bytes (their summed length). */
export function joinBytes(parts: readonly Uint8Array[], total: number, allocate: (size: number) => Uint8Array = (size) => new Uint8Array(size)): Uint8Array {
  const out = allocate(total);
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}
