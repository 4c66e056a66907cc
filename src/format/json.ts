// JSON that keeps 64-bit integers exact. `JSON.parse` turns 9223372036854775807 into a double
// (Node 20 has no parse-with-source), which would silently corrupt int64 fill values. This parser
// returns integers outside the safe range as `bigint`; the writer prints `bigint` as digits.
import { floeError } from '../errors.ts';

/** A parsed JSON value; integers beyond 2^53 are bigints so no digit is lost. */
export type JsonValue = null | boolean | number | bigint | string | JsonValue[] | { [key: string]: JsonValue };

export function parseJson(text: string, where?: string): JsonValue {
  const parser = new Parser(text, where);
  const value = parser.value();
  parser.end();
  return value;
}

class Parser {
  private pos = 0;
  constructor(
    private readonly text: string,
    private readonly where: string | undefined,
  ) {}

  fail(what: string): never {
    throw floeError('INVALID_METADATA', `invalid JSON: ${what} at offset ${this.pos}`, { where: this.where });
  }

  skipSpace(): void {
    const t = this.text;
    while (this.pos < t.length) {
      const c = t.charCodeAt(this.pos);
      if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) break;
      this.pos++;
    }
  }

  end(): void {
    this.skipSpace();
    if (this.pos !== this.text.length) this.fail('trailing characters');
  }

  value(): JsonValue {
    this.skipSpace();
    const c = this.text[this.pos];
    if (c === '{') return this.object();
    if (c === '[') return this.array();
    if (c === '"') return this.string();
    if (c === '-' || (c !== undefined && c >= '0' && c <= '9')) return this.number();
    for (const [word, v] of [['true', true], ['false', false], ['null', null]] as const) {
      if (this.text.startsWith(word, this.pos)) {
        this.pos += word.length;
        return v;
      }
    }
    return this.fail(c === undefined ? 'unexpected end' : `unexpected character ${JSON.stringify(c)}`);
  }

  object(): { [key: string]: JsonValue } {
    const out: { [key: string]: JsonValue } = {};
    this.pos++;
    this.skipSpace();
    if (this.text[this.pos] === '}') {
      this.pos++;
      return out;
    }
    for (;;) {
      this.skipSpace();
      if (this.text[this.pos] !== '"') this.fail('expected a string key');
      const key = this.string();
      this.skipSpace();
      if (this.text[this.pos++] !== ':') this.fail('expected ":"');
      // defineProperty: a key "__proto__" must become data, never a prototype.
      Object.defineProperty(out, key, { value: this.value(), enumerable: true, writable: true, configurable: true });
      this.skipSpace();
      const sep = this.text[this.pos++];
      if (sep === '}') return out;
      if (sep !== ',') this.fail('expected "," or "}"');
    }
  }

  array(): JsonValue[] {
    const out: JsonValue[] = [];
    this.pos++;
    this.skipSpace();
    if (this.text[this.pos] === ']') {
      this.pos++;
      return out;
    }
    for (;;) {
      out.push(this.value());
      this.skipSpace();
      const sep = this.text[this.pos++];
      if (sep === ']') return out;
      if (sep !== ',') this.fail('expected "," or "]"');
    }
  }

  string(): string {
    const m = /^"(?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"/.exec(this.text.slice(this.pos));
    if (!m) this.fail('malformed string');
    this.pos += m[0].length;
    return JSON.parse(m[0]) as string;
  }

  number(): number | bigint {
    const m = /^-?(?:0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(this.text.slice(this.pos, this.pos + 400));
    if (!m) this.fail('malformed number');
    this.pos += m[0].length;
    const isInteger = m[1] === undefined && m[2] === undefined;
    const n = Number(m[0]);
    return isInteger && !Number.isSafeInteger(n) ? BigInt(m[0]) : n;
  }
}

/** Pretty JSON (2-space indent, like zarr-python writes) with `bigint` written as plain digits. */
export function stringifyJson(value: JsonValue, indent = 2): string {
  return write(value, indent, '');
}

function write(value: JsonValue, indent: number, pad: string): string {
  if (typeof value === 'bigint') return value.toString();
  // JSON.stringify(-0) is "0": a -0.0 fill value would lose its sign bit. "-0.0" reads back as -0
  // here, in JSON.parse and in Python (where "-0" would be the integer 0).
  if (Object.is(value, -0)) return '-0.0';
  if (typeof value !== 'object' || value === null) return JSON.stringify(value);
  const inner = pad + ' '.repeat(indent);
  const nl = indent > 0 ? '\n' : '';
  const colon = indent > 0 ? ': ' : ':';
  const items = Array.isArray(value)
    ? value.map((v) => inner + write(v, indent, inner))
    : Object.entries(value).map(([k, v]) => inner + JSON.stringify(k) + colon + write(v, indent, inner));
  const [open, close] = Array.isArray(value) ? ['[', ']'] : ['{', '}'];
  if (items.length === 0) return open + close;
  return open + nl + items.join(',' + nl) + nl + pad + close;
}

export function isJsonObject(v: unknown): v is { [key: string]: JsonValue } {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
