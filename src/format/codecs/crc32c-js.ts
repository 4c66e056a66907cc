// CRC-32C (Castagnoli, reflected polynomial 0x82f63b78) in plain JS, slicing by 8 bytes: the
// crc32c codec's fallback where @node-rs/crc32's native binary is not installed.

const POLYNOMIAL = 0x82f63b78;
const TABLES = buildTables();

function buildTables(): Int32Array[] {
  const tables = Array.from({ length: 8 }, () => new Int32Array(256));
  const [first] = tables as [Int32Array];
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ POLYNOMIAL : c >>> 1;
    first[n] = c;
  }
  for (let t = 1; t < 8; t++) {
    const previous = tables[t - 1] as Int32Array;
    const table = tables[t] as Int32Array;
    for (let n = 0; n < 256; n++) {
      const c = previous[n]!; // n < 256, the table's length
      table[n] = (c >>> 8) ^ first[c & 0xff]!;
    }
  }
  return tables;
}

export function crc32cJs(data: Uint8Array): number {
  const [t0, t1, t2, t3, t4, t5, t6, t7] = TABLES as [Int32Array, Int32Array, Int32Array, Int32Array, Int32Array, Int32Array, Int32Array, Int32Array];
  let crc = ~0;
  let i = 0;
  for (const end = data.length & ~7; i < end; i += 8) {
    // Each lookup is a byte (0..255) into a 256-entry table, so every index is in range.
    const low = crc ^ (data[i]! | (data[i + 1]! << 8) | (data[i + 2]! << 16) | (data[i + 3]! << 24));
    crc =
      t7[low & 0xff]! ^ t6[(low >>> 8) & 0xff]! ^ t5[(low >>> 16) & 0xff]! ^ t4[low >>> 24]! ^
      t3[data[i + 4]!]! ^ t2[data[i + 5]!]! ^ t1[data[i + 6]!]! ^ t0[data[i + 7]!]!;
  }
  for (; i < data.length; i++) crc = t0[(crc ^ data[i]!) & 0xff]! ^ (crc >>> 8);
  return ~crc >>> 0;
}
