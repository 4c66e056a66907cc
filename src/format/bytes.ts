// Byte-array helpers. Node's Buffer overrides `slice` to return a view, so code that may receive
// a Buffer copies with these instead.

/** A fresh copy of `bytes` (plain Uint8Array, owning its whole buffer). */
export function copyBytes(bytes: Uint8Array): Uint8Array {
  return Uint8Array.prototype.slice.call(bytes);
}

/** A copy of any typed array of the same type, never a view (even for Buffer). */
export function copyTypedArray<T extends ArrayBufferView>(data: T): T {
  return (data.constructor as { prototype: { slice(this: T): T } }).prototype.slice.call(data);
}

/** True when the view spans its whole, non-shared buffer, so transferring it loses nothing. */
export function ownsWholeBuffer(view: ArrayBufferView): boolean {
  return view.byteOffset === 0 && view.byteLength === view.buffer.byteLength && !(view.buffer instanceof SharedArrayBuffer);
}
