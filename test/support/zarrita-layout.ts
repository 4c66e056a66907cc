// zarrita results in Floe's layout: elements as bytes (its BoolArray as 0/1 bytes), in C order
// (zarrita may hand back F-ordered data with matching strides, e.g. for a transpose codec).

/** Elements as bytes for a bit-exact comparison; zarrita's BoolArray becomes 0/1 bytes. */
export function bytesOf(data: unknown): Uint8Array {
  if (ArrayBuffer.isView(data)) return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  return Uint8Array.from(data as Iterable<boolean>, (b) => (b ? 1 : 0));
}

/** Where each element of C order sits in data laid out with `stride`. */
export function cOrderPositions(shape: readonly number[], stride: readonly number[]): number[] {
  let positions = [0];
  shape.forEach((n, d) => {
    const step = stride[d] ?? 0;
    positions = positions.flatMap((p) => Array.from({ length: n }, (_, i) => p + i * step));
  });
  return positions;
}

/** A zarrita result's element bytes in C order. */
export function cOrdered(result: { data: unknown; shape: number[]; stride: number[] }): Uint8Array {
  const src = bytesOf(result.data);
  const positions = cOrderPositions(result.shape, result.stride);
  const w = positions.length === 0 ? 1 : src.length / positions.length;
  const out = new Uint8Array(positions.length * w);
  positions.forEach((p, k) => out.set(src.subarray(p * w, (p + 1) * w), k * w));
  return out;
}
