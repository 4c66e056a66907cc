// `--json` output: plain JSON that scripts can parse. Values JSON cannot hold are spelled out:
// bigint as a decimal string, NaN/±Infinity as strings (Zarr's own fill-value convention),
// typed arrays as arrays, Dates as ISO strings.
export function toJsonValue(value: unknown): unknown {
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'number') return Number.isFinite(value) ? value : Number.isNaN(value) ? 'NaN' : value > 0 ? 'Infinity' : '-Infinity';
  if (value instanceof Date) return value.toISOString();
  if (value instanceof Uint8Array && value.constructor === Uint8Array) return Array.from(value);
  if (ArrayBuffer.isView(value) && !(value instanceof DataView)) return Array.from(value as unknown as ArrayLike<number | bigint>, toJsonValue);
  if (Array.isArray(value)) return value.map(toJsonValue);
  if (value instanceof Map) return Object.fromEntries([...value].map(([k, v]) => [String(k), toJsonValue(v)]));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined).map(([k, v]) => [k, toJsonValue(v)]));
  }
  return value;
}

export function toJsonText(value: unknown): string {
  return JSON.stringify(toJsonValue(value), null, 2);
}
