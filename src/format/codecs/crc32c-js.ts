// CRC-32C (Castagnoli, reflected polynomial 0x82f63b78) in plain JS, slicing by 8 bytes: the
// crc32c codec's fallback where @node-rs/crc32's native binary is not installed.

const POLYNOMIAL = 0x82f63b78;

/** A 256-entry table indexed by a byte; only `byteTable` makes one. */
type ByteTable = Int32Array & { readonly __entries: 256 };

function byteTable(entry: (byte: number) => number): ByteTable {
  return Int32Array.from({ length: 256 }, (_, b) => entry(b)) as ByteTable;
}

// Local, not shared: a hot loop's lookups stay monomorphic and inline.
function byteEntry(table: ByteTable, byte: number): number {
  return table[byte & 255]!; // 0 <= byte & 255 < 256 = table.length (byteTable)
}

// T0 is the bytewise table; Tk advances a byte's CRC through k more zero bytes.
const T0 = byteTable((n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ POLYNOMIAL : c >>> 1;
  return c;
});
const advance = (previous: ByteTable): ByteTable =>
  byteTable((n) => {
    const c = byteEntry(previous, n);
    return (c >>> 8) ^ byteEntry(T0, c);
  });
const T1 = advance(T0);
const T2 = advance(T1);
const T3 = advance(T2);
const T4 = advance(T3);
const T5 = advance(T4);
const T6 = advance(T5);
const T7 = advance(T6);

export function crc32cJs(data: Uint8Array): number {
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  let crc = ~0;
  let i = 0;
  for (const end = data.length & ~7; i < end; i += 8) {
    // Two little-endian words (i + 8 <= end <= data.length); byteEntry keeps the low byte of each shift.
    const low = crc ^ view.getInt32(i, true);
    const high = view.getInt32(i + 4, true);
    crc =
      byteEntry(T7, low) ^ byteEntry(T6, low >>> 8) ^ byteEntry(T5, low >>> 16) ^ byteEntry(T4, low >>> 24) ^
      byteEntry(T3, high) ^ byteEntry(T2, high >>> 8) ^ byteEntry(T1, high >>> 16) ^ byteEntry(T0, high >>> 24);
  }
  for (const b of data.subarray(i)) crc = byteEntry(T0, crc ^ b) ^ (crc >>> 8);
  return ~crc >>> 0;
}
