// NumPy's fixed-width unicode (`U<n>`): n UCS-4 code units per element, NUL-padded. Like NumPy,
// reading drops trailing NULs, so a string that ends in U+0000 does not survive a round trip.
import { floeError } from '../../errors.ts';

export function decodeUcs4(bytes: Uint8Array, count: number, chars: number, littleEndian: boolean): string[] {
  if (bytes.length !== count * chars * 4) {
    throw floeError('CORRUPT_OBJECT', `chunk holds ${bytes.length} bytes, expected ${count * chars * 4} (${count} x U${chars})`);
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out = new Array<string>(count);
  const units: number[] = [];
  for (let i = 0; i < count; i++) {
    units.length = 0;
    for (let c = 0; c < chars; c++) {
      const u = view.getUint32((i * chars + c) * 4, littleEndian);
      if (u > 0x10ffff) throw floeError('CORRUPT_OBJECT', `element ${i} holds 0x${u.toString(16)}, not a Unicode code point`);
      units.push(u);
    }
    while (units.length > 0 && units[units.length - 1] === 0) units.pop();
    out[i] = String.fromCodePoint(...units);
  }
  return out;
}

export function encodeUcs4(strings: readonly unknown[], chars: number, littleEndian: boolean): Uint8Array {
  const out = new Uint8Array(strings.length * chars * 4);
  const view = new DataView(out.buffer);
  strings.forEach((s, i) => {
    if (typeof s !== 'string') throw floeError('INVALID_ARGUMENT', `element ${i} of a U${chars} array must be a string, got ${typeof s}`);
    const points = [...s].map((c) => c.codePointAt(0)!);
    if (points.length > chars) {
      throw floeError('INVALID_ARGUMENT', `element ${i} has ${points.length} characters; U${chars} holds at most ${chars} (NumPy would truncate, Floe refuses)`);
    }
    points.forEach((p, c) => view.setUint32((i * chars + c) * 4, p, littleEndian));
  });
  return out;
}
