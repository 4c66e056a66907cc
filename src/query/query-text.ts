// A query as the builder calls written out — the same text explain() prints — or as the JSON form
// the query server takes (json-query.ts); `floe query`, `floe explain` and the viewer page take it:
//   .from("/climate/temperature").where("time", "between", [2024-07-01, 2024-07-07]).nearest("lat", 45)
//   {"from": "/climate/temperature", "ops": [{"where": ["lat", ">=", 30]}]}
// Text is converted to the JSON form, so both go through one decoder. Labels in text: numbers,
// quoted strings, `123n` bigints, and dates as bare ISO timestamps or date("...").
import { floeError, isFloeError } from '../errors.ts';
import { parseJson } from '../format/json.ts';

type Value = number | string | null | { date: string } | { bigint: string } | Value[] | { [key: string]: Value };

export interface JsonQuery {
  from: string;
  dtype?: string;
  select?: string[];
  ops: Record<string, Value[]>[];
}

const OPS = new Set(['where', 'whereIndex', 'nearest', 'limit', 'stride']);

/** The query's JSON form; INVALID_ARGUMENT saying where the text goes wrong. */
export function parseQueryText(text: string): unknown {
  const trimmed = text.trim();
  if (trimmed.startsWith('{')) {
    try {
      return parseJson(trimmed, 'the query', { exactIntegers: false });
    } catch (err) {
      if (!isFloeError(err, 'INVALID_METADATA', 'LIMIT_EXCEEDED')) throw err;
      throw floeError('INVALID_ARGUMENT', `the query looks like JSON but is not: ${err.message}`, { cause: err });
    }
  }
  return new ChainParser(trimmed.replace(/^query\s*\([^)]*\)/, '')).parse();
}

class ChainParser {
  private at = 0;
  constructor(private readonly src: string) {}

  parse(): JsonQuery {
    const out: JsonQuery = { from: '', ops: [] };
    this.space();
    while (this.at < this.src.length) {
      if (this.src[this.at] === '.') this.at++;
      const name = this.identifier();
      this.expect('(');
      const args = this.list(')');
      if (name === 'from') {
        if (typeof args[0] !== 'string') this.fail('from takes an array path, e.g. .from("/climate/temperature")');
        out.from = args[0] as string;
        if (typeof args[1] === 'string') out.dtype = args[1];
      } else if (name === 'select') {
        out.select = [...(out.select ?? []), ...args.map((a) => (typeof a === 'string' ? a : this.fail('select takes array paths')))];
      } else if (OPS.has(name)) {
        out.ops.push({ [name]: args });
      } else {
        this.fail(`unknown call .${name}(); use from, select, ${[...OPS].join(', ')}`);
      }
      this.space();
    }
    if (out.from === '') this.fail('a query starts with .from("/path/to/array")');
    return out;
  }

  private value(): Value {
    this.space();
    const c = this.src[this.at];
    if (c === '"' || c === "'") return this.string();
    if (c === '[') {
      this.at++;
      return this.list(']');
    }
    if (c === '{') {
      this.at++;
      const obj: { [key: string]: Value } = {};
      for (this.space(); this.src[this.at] !== '}'; this.space()) {
        const key = this.src[this.at] === '"' || this.src[this.at] === "'" ? this.string() : this.identifier();
        this.expect(':');
        obj[key] = this.value();
        this.space();
        if (this.src[this.at] === ',') this.at++;
        else if (this.src[this.at] !== '}') this.fail('expected , or }');
      }
      this.at++;
      return obj;
    }
    const rest = this.src.slice(this.at);
    const iso = /^\d{4}-\d{2}-\d{2}(T[\d:.]+(Z|[+-]\d{2}:?\d{2})?)?/.exec(rest);
    if (iso) {
      this.at += iso[0].length;
      return { date: iso[0] };
    }
    const big = /^-?\d+n/.exec(rest);
    if (big) {
      this.at += big[0].length;
      return { bigint: big[0].slice(0, -1) };
    }
    const num = /^-?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?/i.exec(rest);
    if (num) {
      this.at += num[0].length;
      return Number(num[0]);
    }
    if (rest.startsWith('null')) {
      this.at += 4;
      return null;
    }
    const call = /^(new\s+Date|date)\s*\(/.exec(rest);
    if (call) {
      this.at += call[0].length;
      const [arg] = this.list(')');
      if (typeof arg !== 'string') this.fail('date() takes an ISO date string');
      return { date: arg as string };
    }
    return this.fail('expected a number, "string", [list], {options}, a date or null');
  }

  private list(close: string): Value[] {
    const items: Value[] = [];
    for (this.space(); this.src[this.at] !== close; this.space()) {
      if (this.at >= this.src.length) this.fail(`missing ${close}`);
      items.push(this.value());
      this.space();
      if (this.src[this.at] === ',') this.at++;
      else if (this.src[this.at] !== close) this.fail(`expected , or ${close}`);
    }
    this.at++;
    return items;
  }

  private string(): string {
    const quote = this.src[this.at++];
    if (quote === undefined) this.fail('expected a string');
    let out = '';
    while (this.at < this.src.length && this.src[this.at] !== quote) {
      if (this.src[this.at] === '\\') this.at++;
      out += this.src[this.at++];
    }
    if (this.at >= this.src.length) this.fail('unterminated string');
    this.at++;
    return out;
  }

  private identifier(): string {
    this.space();
    const m = /^[A-Za-z_]\w*/.exec(this.src.slice(this.at));
    if (!m) return this.fail('expected a name like from, where, nearest');
    this.at += m[0].length;
    return m[0];
  }

  private expect(ch: string): void {
    this.space();
    if (this.src[this.at] !== ch) this.fail(`expected ${ch}`);
    this.at++;
  }

  private space(): void {
    while (/\s/.test(this.src[this.at] ?? '')) this.at++;
  }

  private fail(message: string): never {
    throw floeError('INVALID_ARGUMENT', `bad query at character ${this.at + 1}: ${message} (near ${JSON.stringify(this.src.slice(this.at, this.at + 20))})`);
  }
}
