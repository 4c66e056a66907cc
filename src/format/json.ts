// JSON that keeps 64-bit integers exact. `JSON.parse` turns 9223372036854775807 into a double
// (Node 20 has no parse-with-source), which would silently corrupt int64 fill values. This parser
// returns integers outside the safe range as `bigint`; the writer prints `bigint` as digits.
//
// Every JSON document Floe reads or writes goes through here, held to the same size (UTF-8 bytes)
// and nesting limits both ways (limits.ts: 64 MiB and 512 levels by default), so Floe never writes
// a document it would refuse to read. Nesting is counted, never discovered by a stack overflow.
import { floeError } from '../errors.ts';
import { limitExceeded, resourceLimits } from './limits.ts';
import { utf8Length } from '../platform/host.ts';

/** A parsed JSON value; integers beyond 2^53 are bigints so no digit is lost. */
export type JsonValue = null | boolean | number | bigint | string | JsonValue[] | { [key: string]: JsonValue };

/** Size and nesting limits of one document; each defaults to the process's resourceLimits(). */
export interface JsonLimits {
  /** UTF-8 bytes of the document. */
  readonly maxBytes?: number | undefined;
  /** Levels of arrays and objects, the outermost being level 1. */
  readonly maxDepth?: number | undefined;
}

export interface JsonReadOptions extends JsonLimits {
  /** Python's bare NaN, Infinity and -Infinity (zarr v1) read as the strings "NaN", "Infinity", "-Infinity". */
  readonly nonFinite?: boolean | undefined;
  /** false: every number is a double, as JSON.parse gives (query bodies). Default true. */
  readonly exactIntegers?: boolean | undefined;
}

/**
 * Parses one JSON document (text, or UTF-8 bytes checked against the size limit before decoding).
 * Malformed input is INVALID_METADATA naming `where`; a document over a limit is LIMIT_EXCEEDED.
 */
export function parseJson(input: string | Uint8Array, where?: string, options: JsonReadOptions = {}): JsonValue {
  const maxBytes = options.maxBytes ?? resourceLimits().jsonBytes;
  const text = typeof input === 'string' ? input : decodeUtf8(input, maxBytes, where);
  if (typeof input === 'string') checkTextSize(text, maxBytes, where);
  const parser = new Parser(text, where, options.maxDepth ?? resourceLimits().jsonDepth, options.nonFinite ?? false, options.exactIntegers ?? true);
  const value = parser.value(0);
  parser.end();
  return value;
}

function decodeUtf8(bytes: Uint8Array, maxBytes: number, where: string | undefined): string {
  if (bytes.length > maxBytes) throw tooLarge(bytes.length, maxBytes, where);
  try {
    return utf8.decode(bytes);
  } catch (cause) {
    throw floeError('INVALID_METADATA', 'the JSON document is not valid UTF-8 text', { where, cause });
  }
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** UTF-8 bytes are at least the UTF-16 length and at most 3x it: measured only when it matters. */
function checkTextSize(text: string, maxBytes: number, where: string | undefined): void {
  if (text.length * 3 <= maxBytes) return;
  const bytes = text.length > maxBytes ? text.length : utf8Length(text);
  if (bytes > maxBytes) throw tooLarge(bytes, maxBytes, where);
}

function tooLarge(bytes: number, maxBytes: number, where: string | undefined): Error {
  return limitExceeded('json-bytes', maxBytes, `a JSON document of ${bytes} bytes is over the ${maxBytes}-byte limit; raise jsonBytes with configureLimits if it is genuine`, { actual: bytes, where });
}

function tooDeep(maxDepth: number, at: string, where: string | undefined): Error {
  return limitExceeded('json-depth', maxDepth, `JSON nests deeper than ${maxDepth} levels${at}; flatten the value or raise jsonDepth with configureLimits`, { where });
}

const NON_FINITE = ['-Infinity', 'Infinity', 'NaN'] as const;

class Parser {
  private pos = 0;
  constructor(
    private readonly text: string,
    private readonly where: string | undefined,
    private readonly maxDepth: number,
    private readonly nonFinite: boolean,
    private readonly exactIntegers: boolean,
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

  /** A value inside `depth` open arrays and objects. */
  value(depth: number): JsonValue {
    this.skipSpace();
    const c = this.text[this.pos];
    if (c === '{' || c === '[') {
      if (depth >= this.maxDepth) throw tooDeep(this.maxDepth, ` (at offset ${this.pos})`, this.where);
      return c === '{' ? this.object(depth + 1) : this.array(depth + 1);
    }
    if (c === '"') return this.string();
    if (this.nonFinite) {
      const token = NON_FINITE.find((t) => this.text.startsWith(t, this.pos));
      if (token) {
        this.pos += token.length;
        return token;
      }
    }
    if (c === '-' || (c !== undefined && c >= '0' && c <= '9')) return this.number();
    for (const [word, v] of [['true', true], ['false', false], ['null', null]] as const) {
      if (this.text.startsWith(word, this.pos)) {
        this.pos += word.length;
        return v;
      }
    }
    return this.fail(c === undefined ? 'unexpected end' : `unexpected character ${JSON.stringify(c)}`);
  }

  object(depth: number): { [key: string]: JsonValue } {
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
      // A key "__proto__" must become data, never a prototype: defineProperty for it. Any other
      // key assigns (an own data property either way; Object.prototype's one accessor is
      // __proto__), which keeps the object in V8's fast mode: defineProperty per key made parsing
      // 10,000 fork descriptions take a second more (bench/distributed.ts).
      const value = this.value(depth);
      if (key === '__proto__') Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
      else out[key] = value;
      this.skipSpace();
      const sep = this.text[this.pos++];
      if (sep === '}') return out;
      if (sep !== ',') this.fail('expected "," or "}"');
    }
  }

  array(depth: number): JsonValue[] {
    const out: JsonValue[] = [];
    this.pos++;
    this.skipSpace();
    if (this.text[this.pos] === ']') {
      this.pos++;
      return out;
    }
    for (;;) {
      out.push(this.value(depth));
      this.skipSpace();
      const sep = this.text[this.pos++];
      if (sep === ']') return out;
      if (sep !== ',') this.fail('expected "," or "]"');
    }
  }

  /**
   * A string literal, found by a plain scan (a backtracking regular expression over a long string
   * overflows the stack); JSON.parse then checks and decodes the escapes of that literal alone.
   */
  string(): string {
    const t = this.text;
    const start = this.pos;
    let escaped = false;
    let i = start + 1;
    for (;;) {
      const c = t.charCodeAt(i);
      if (c === 0x22) break;
      if (Number.isNaN(c)) {
        this.pos = i;
        this.fail('unterminated string');
      }
      if (c < 0x20) {
        this.pos = i;
        this.fail('a control character inside a string');
      }
      if (c === 0x5c) {
        escaped = true;
        i += 2;
      } else {
        i++;
      }
    }
    this.pos = i + 1;
    if (!escaped) return t.slice(start + 1, i);
    try {
      return JSON.parse(t.slice(start, i + 1)) as string;
    } catch {
      this.pos = start;
      return this.fail('malformed string escape');
    }
  }

  number(): number | bigint {
    const m = /^-?(?:0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(this.text.slice(this.pos, this.pos + 400));
    if (!m) this.fail('malformed number');
    this.pos += m[0].length;
    const isInteger = m[1] === undefined && m[2] === undefined;
    const n = Number(m[0]);
    return this.exactIntegers && isInteger && !Number.isSafeInteger(n) ? BigInt(m[0]) : n;
  }
}

export interface JsonWriteOptions extends JsonLimits {
  /** Names the document in errors (a store key). */
  readonly where?: string | undefined;
}

interface DepthCheckOptions extends JsonWriteOptions {
  /** Objects a writer prints as one scalar (zarr v1's PyFloat): not a level of nesting. */
  readonly isLeaf?: (value: object) => boolean;
}

/**
 * Pretty JSON (2-space indent, like zarr-python writes) with `bigint` written as plain digits.
 * Refuses (LIMIT_EXCEEDED) what parseJson would refuse: nesting past the depth limit, named by
 * its path in the document, and output past the size limit.
 */
export function stringifyJson(value: JsonValue, indent = 2, options: JsonWriteOptions = {}): string {
  const maxDepth = options.maxDepth ?? resourceLimits().jsonDepth;
  return checkedText(() => {
    try {
      return write(value, indent, '', 0, maxDepth);
    } catch (err) {
      // Only now walk the value again, to name the path of the first value too deep.
      if (err === TOO_DEEP) checkJsonDepth(value, options);
      throw err;
    }
  }, options);
}

/** Thrown by `write` past the depth limit (a cycle included); stringifyJson names the path. */
const TOO_DEEP = new Error('JSON nests too deep');

/**
 * Runs a JSON writer and holds its output to the size limit. A document past V8's longest string
 * (~512 MiB, far over any limit) fails inside the writer with "Invalid string length": that
 * RangeError means the same.
 */
export function checkedText(build: () => string, options: JsonWriteOptions = {}): string {
  const maxBytes = options.maxBytes ?? resourceLimits().jsonBytes;
  let text: string;
  try {
    text = build();
  } catch (err) {
    if (err instanceof RangeError && err.message.includes('Invalid string length')) {
      throw limitExceeded('json-bytes', maxBytes, `a JSON document longer than the longest string is over the ${maxBytes}-byte limit`, { where: options.where });
    }
    throw err;
  }
  checkTextSize(text, maxBytes, options.where);
  return text;
}

/**
 * Refuses a value nested deeper than the depth limit (a cycle counts as too deep), naming the path
 * of the first value past it, e.g. `attributes.a[0][0]…`. Writers call it before recursing.
 */
export function checkJsonDepth(value: unknown, options: DepthCheckOptions = {}): void {
  const maxDepth = options.maxDepth ?? resourceLimits().jsonDepth;
  const path: (string | number)[] = [];
  const visit = (v: unknown, depth: number): void => {
    if (typeof v !== 'object' || v === null || ArrayBuffer.isView(v) || options.isLeaf?.(v)) return;
    if (depth >= maxDepth) throw tooDeep(maxDepth, ` at ${describePath(path)}`, options.where);
    // Plain loops: this walk runs before every metadata write, so it allocates nothing per value.
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        path.push(i);
        visit(v[i], depth + 1);
        path.pop();
      }
      return;
    }
    const record = v as Record<string, unknown>;
    for (const key in record) {
      if (!Object.hasOwn(record, key)) continue;
      path.push(key);
      visit(record[key], depth + 1);
      path.pop();
    }
  };
  visit(value, 0);
}

/** A path into a document for messages: `a.b[0]`, long ones cut in the middle. */
function describePath(path: readonly (string | number)[]): string {
  const show = (segments: readonly (string | number)[]): string =>
    segments.map((s) => (typeof s === 'number' ? `[${s}]` : /^[A-Za-z_$][\w$]*$/.test(s) ? `.${s}` : `[${JSON.stringify(s.length > 40 ? s.slice(0, 40) + '…' : s)}]`)).join('');
  if (path.length === 0) return 'the top level';
  const text = path.length <= 12 ? show(path) : `${show(path.slice(0, 8))}…(${path.length - 10} more)…${show(path.slice(-2))}`;
  return text.startsWith('.') ? text.slice(1) : text;
}

/** `depth`: arrays and objects around `value`; one more is refused past `maxDepth`. */
function write(value: JsonValue, indent: number, pad: string, depth: number, maxDepth: number): string {
  if (typeof value === 'bigint') return value.toString();
  // JSON.stringify(-0) is "0": a -0.0 fill value would lose its sign bit. "-0.0" reads back as -0
  // here, in JSON.parse and in Python (where "-0" would be the integer 0).
  if (Object.is(value, -0)) return '-0.0';
  if (typeof value !== 'object' || value === null) return JSON.stringify(value);
  if (depth >= maxDepth) throw TOO_DEEP;
  const inner = pad + ' '.repeat(indent);
  const nl = indent > 0 ? '\n' : '';
  const colon = indent > 0 ? ': ' : ':';
  const items = Array.isArray(value)
    ? value.map((v) => inner + write(v, indent, inner, depth + 1, maxDepth))
    : Object.entries(value).map(([k, v]) => inner + JSON.stringify(k) + colon + write(v, indent, inner, depth + 1, maxDepth));
  const [open, close] = Array.isArray(value) ? ['[', ']'] : ['{', '}'];
  if (items.length === 0) return open + close;
  return open + nl + items.join(',' + nl) + nl + pad + close;
}

export function isJsonObject(v: unknown): v is { [key: string]: JsonValue } {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
