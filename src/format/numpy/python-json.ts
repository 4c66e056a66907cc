// JSON as zarr 1.x wrote it: Python's `json.dumps(obj, indent=4, sort_keys=True)` (ASCII only,
// no trailing newline, floats in Python's repr, NaN/Infinity as bare tokens). Reading accepts
// those bare tokens too, which strict JSON parsers refuse.
import { checkedText, checkJsonDepth, parseJson, type JsonValue, type JsonWriteOptions } from '../json.ts';
import { compareSequences } from '../indexing.ts';

/** A number Python would write as a float: `0.0`, not `0`. */
export class PyFloat {
  constructor(readonly value: number) {}
}

export type PyJson = JsonValue | PyFloat | PyJson[] | { [key: string]: PyJson };

/**
 * Parses Python-flavoured JSON: bare `NaN`, `Infinity`, `-Infinity` (outside strings) become the
 * strings "NaN", "Infinity", "-Infinity", the form fill-value parsing understands. Held to the
 * JSON size and depth limits like every document (json.ts).
 */
export function parsePythonJson(text: string | Uint8Array, where: string): JsonValue {
  return parseJson(text, where, { nonFinite: true });
}

/** Python's json.dumps layout; refuses (LIMIT_EXCEEDED) what parsePythonJson would refuse to read. */
export function stringifyPythonJson(value: PyJson, indent = 4, options: JsonWriteOptions = {}): string {
  checkJsonDepth(value, { ...options, isLeaf: (v) => v instanceof PyFloat });
  return checkedText(() => write(value, indent, ''), options);
}

function write(value: PyJson, indent: number, pad: string): string {
  if (value instanceof PyFloat) return pythonFloat(value.value);
  if (typeof value === 'number') return Number.isInteger(value) ? String(value) : pythonFloat(value);
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'string') return asciiString(value);
  if (value === null || typeof value === 'boolean') return JSON.stringify(value);
  const inner = pad + ' '.repeat(indent);
  const items = Array.isArray(value)
    ? value.map((v) => inner + write(v, indent, inner))
    : Object.entries(value)
        .sort(([a], [b]) => byCodePoint(a, b))
        .map(([k, v]) => inner + asciiString(k) + ': ' + write(v, indent, inner));
  const [open, close] = Array.isArray(value) ? ['[', ']'] : ['{', '}'];
  if (items.length === 0) return open + close;
  return open + '\n' + items.join(',\n') + '\n' + pad + close;
}

/** Python's float repr: shortest round-trip digits, exponent form below 1e-4 or from 1e16. */
export function pythonFloat(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return 'Infinity';
  if (v === -Infinity) return '-Infinity';
  if (v === 0) return Object.is(v, -0) ? '-0.0' : '0.0';
  const [mantissa, expText] = v.toExponential().split('e') as [string, string];
  const exp = Number(expText);
  if (exp < -4 || exp >= 16) {
    return `${mantissa}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
  }
  const fixed = v.toFixed(Math.max(0, (mantissa.split('.')[1]?.length ?? 0) - exp));
  return fixed.includes('.') ? fixed : fixed + '.0';
}

/** json.dumps with ensure_ascii: every non-ASCII UTF-16 unit becomes \uXXXX. */
function asciiString(s: string): string {
  return JSON.stringify(s).replace(/[\u007f-\uffff]/g, (c) => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0'));
}

/** Python sorts str keys by code point; JS's default compares UTF-16 units. */
function byCodePoint(a: string, b: string): number {
  const x = [...a].map((c) => c.codePointAt(0)!);
  const y = [...b].map((c) => c.codePointAt(0)!);
  return compareSequences(x, y);
}
