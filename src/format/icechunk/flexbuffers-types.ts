// The FlexBuffers type codes and bit widths shared by the reader and the writer. A packed type
// byte is `type << 2 | widthCode`; a width code n means 1 << n bytes.

/** A value FlexBuffers can carry: JSON plus 64-bit integers (bigint) and blobs (bytes). */
export type FlexValue =
  | null
  | boolean
  | number
  | bigint
  | string
  | Uint8Array
  | FlexValue[]
  | { [key: string]: FlexValue };

export const FlexType = {
  Null: 0,
  Int: 1,
  UInt: 2,
  Float: 3,
  Key: 4,
  String: 5,
  IndirectInt: 6,
  IndirectUInt: 7,
  IndirectFloat: 8,
  Map: 9,
  Vector: 10,
  VectorInt: 11,
  VectorUInt: 12,
  VectorFloat: 13,
  VectorKey: 14,
  /** Deprecated for writing (its strings' length width is ambiguous); still read. */
  VectorString: 15,
  VectorInt2: 16,
  VectorUInt2: 17,
  VectorFloat2: 18,
  VectorInt3: 19,
  VectorUInt3: 20,
  VectorFloat3: 21,
  VectorInt4: 22,
  VectorUInt4: 23,
  VectorFloat4: 24,
  Blob: 25,
  Bool: 26,
  VectorBool: 36,
} as const;
export type FlexTypeCode = (typeof FlexType)[keyof typeof FlexType];

/** Width codes: bytes = 1 << code. */
export type WidthCode = 0 | 1 | 2 | 3;

/** Types stored in their parent's slot rather than behind an offset. */
export function isInlineType(type: number): boolean {
  return type <= FlexType.Float || type === FlexType.Bool;
}

/** Element type of a typed vector (VectorInt..VectorString, VectorBool), else undefined. */
export function typedVectorElement(type: number): number | undefined {
  if (type >= FlexType.VectorInt && type <= FlexType.VectorString) return type - FlexType.VectorInt + FlexType.Int;
  if (type === FlexType.VectorBool) return FlexType.Bool;
  return undefined;
}

/** Element type and length of a fixed typed vector (VectorInt2..VectorFloat4), else undefined. */
export function fixedVectorShape(type: number): { element: number; length: number } | undefined {
  if (type < FlexType.VectorInt2 || type > FlexType.VectorFloat4) return undefined;
  const n = type - FlexType.VectorInt2;
  return { element: (n % 3) + FlexType.Int, length: Math.floor(n / 3) + 2 };
}

const U8_MAX = 0xff;
const U16_MAX = 0xffff;
const U32_MAX = 0xffffffff;

/** Smallest width holding an unsigned integer. */
export function uintWidth(x: number | bigint): WidthCode {
  if (x <= U8_MAX) return 0;
  if (x <= U16_MAX) return 1;
  if (x <= U32_MAX) return 2;
  return 3;
}

/** Smallest width holding a signed integer. */
export function intWidth(x: number | bigint): WidthCode {
  if (x >= -0x80 && x <= 0x7f) return 0;
  if (x >= -0x8000 && x <= 0x7fff) return 1;
  if (x >= -0x80000000 && x <= 0x7fffffff) return 2;
  return 3;
}

/**
 * 32 bits when the double survives a float32 round trip exactly, else 64. (The Rust crate the
 * reference uses also narrows doubles within f64::EPSILON of a float32, which loses digits of
 * tiny values; Floe never narrows lossily.) NaN narrows, as it does in the reference.
 */
export function floatWidth(x: number): WidthCode {
  return Number.isNaN(x) || Math.fround(x) === x ? 2 : 3;
}
