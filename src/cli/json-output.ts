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

/** Values per write when streaming a large array: keeps each string far below V8's ~512 MB limit. */
const VALUES_PER_WRITE = 1 << 16;

/**
 * Writes `{ ...head, [name]: values }` as toJsonText would lay it out, but the array in pieces of
 * `batch` values, awaiting `write` after each (so a stream's backpressure holds): `floe cat --json` of tens of millions of values would otherwise build one string
 * past V8's maximum length (a RangeError instead of output).
 */
export async function writeJsonWithArray(
  write: (text: string) => unknown,
  head: Record<string, unknown>,
  name: string,
  values: ArrayLike<unknown>,
  batch = VALUES_PER_WRITE,
): Promise<void> {
  const opening = toJsonText(head);
  // toJsonText of a non-empty object ends with "\n}"; the array joins it as its last key.
  await write(`${opening.slice(0, -2)},\n  ${JSON.stringify(name)}: [`);
  for (let start = 0; start < values.length; start += batch) {
    const parts: string[] = [];
    for (let i = start; i < Math.min(values.length, start + batch); i++) {
      // Nested values (a binary element's bytes) keep toJsonText's layout, two levels deeper.
      const element = JSON.stringify(toJsonValue(values[i]), null, 2).replaceAll('\n', '\n    ');
      parts.push(`${i === 0 ? '' : ','}\n    ${element}`);
    }
    await write(parts.join(''));
  }
  await write(values.length === 0 ? ']\n}\n' : '\n  ]\n}\n');
}
