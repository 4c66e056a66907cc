// The metadata value model, apart from metadata-value.ts (which picks the wire codec per spec
// version) so that a codec such as msgpack.ts can produce it without importing its dispatcher.

/** A JSON value; integers beyond 2^53 decode as bigint rather than lose digits. */
export type MetadataValue =
  | null
  | boolean
  | number
  | bigint
  | string
  | MetadataValue[]
  | { [key: string]: MetadataValue };

export interface MetadataItem {
  name: string;
  value: MetadataValue;
}
