// kerchunk references (the JSON form the Python tools write): version 1 (`{"version": 1,
// "templates": ..., "gen": [...], "refs": {...}}`) and version 0 (the refs object alone). Each key
// is a Zarr v2 key: `.zgroup` / `.zarray` / `.zattrs` documents (JSON text, or the object), and
// chunks as inline data (text, or `base64:` followed by base64), `[url, offset, length]` byte
// ranges, or `[url]` whole files. `{{name}}` in a url is a template; `gen` entries expand into
// ranges over the product of their dimensions, with `{{ expression }}` in key, url, offset and
// length (integer arithmetic on the dimension variables: + - * // % and parentheses). Pure.
import { floeError } from '../../errors.ts';
import { isJsonObject, parseJson, type JsonValue } from '../json.ts';

export type KerchunkChunk =
  | { readonly kind: 'inline'; readonly bytes: Uint8Array }
  | { readonly kind: 'range'; readonly url: string; readonly offset: number; readonly length: number }
  | { readonly kind: 'whole'; readonly url: string };

export interface KerchunkReferences {
  /** `.zgroup`, `.zarray` and `.zattrs` documents by key. */
  readonly metadata: ReadonlyMap<string, JsonValue>;
  readonly chunks: ReadonlyMap<string, KerchunkChunk>;
}

/** Keys `gen` may make (each is a ref held in memory). */
export const MAX_GENERATED_REFS = 10_000_000;

const METADATA = /(^|\/)\.(zgroup|zarray|zattrs|zmetadata)$/;

export function parseKerchunkReferences(input: string | Uint8Array, file: string, maxBytes?: number): KerchunkReferences {
  const corrupt = (what: string): never => {
    throw floeError('CORRUPT_OBJECT', `kerchunk references ${file}: ${what}`, { where: file, details: { file } });
  };
  const doc = parseJson(input, file, maxBytes === undefined ? {} : { maxBytes });
  if (!isJsonObject(doc)) return corrupt('the document is not a JSON object');
  let refs: { [key: string]: JsonValue };
  let templates: Record<string, string> = {};
  let gen: JsonValue[] = [];
  if ('version' in doc) {
    if (doc.version !== 1) {
      throw floeError('UNSUPPORTED', `kerchunk references ${file}: version ${JSON.stringify(doc.version)} is not supported (0 and 1 are)`, { where: file, details: { file } });
    }
    if (!isJsonObject(doc.refs)) return corrupt('"refs" is not an object');
    refs = doc.refs;
    if (doc.templates !== undefined) {
      if (!isJsonObject(doc.templates)) return corrupt('"templates" is not an object');
      templates = Object.fromEntries(Object.entries(doc.templates).map(([k, v]) => [k, typeof v === 'string' ? v : corrupt(`template ${k} is not a string`)]));
    }
    if (doc.gen !== undefined) gen = Array.isArray(doc.gen) ? doc.gen : corrupt('"gen" is not a list');
  } else {
    refs = doc;
  }
  const metadata = new Map<string, JsonValue>();
  const chunks = new Map<string, KerchunkChunk>();
  const render = (text: string, vars: Record<string, number>, what: string) => renderTemplate(text, templates, vars, (why) => corrupt(`${what}: ${why}`));
  for (const [key, value] of Object.entries(refs)) {
    if (METADATA.test(key)) {
      if (typeof value === 'string') metadata.set(key, parseJson(value, `${file}: ${key}`));
      else if (isJsonObject(value)) metadata.set(key, value);
      else corrupt(`${key} is neither JSON text nor an object`);
      continue;
    }
    chunks.set(key, chunkOf(value, key, render, corrupt));
  }
  for (const [i, entry] of gen.entries()) expandGen(entry, i, chunks, render, corrupt);
  return { metadata, chunks };
}

type Render = (text: string, vars: Record<string, number>, what: string) => string;

function chunkOf(value: JsonValue, key: string, render: Render, corrupt: (what: string) => never): KerchunkChunk {
  if (typeof value === 'string') {
    if (value.startsWith('base64:')) {
      const text = value.slice(7);
      if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text) || text.length % 4 === 1) corrupt(`${key}: inline data is not valid base64`);
      return { kind: 'inline', bytes: new Uint8Array(Buffer.from(text, 'base64')) };
    }
    return { kind: 'inline', bytes: new TextEncoder().encode(value) };
  }
  if (!Array.isArray(value) || (value.length !== 1 && value.length !== 3) || typeof value[0] !== 'string') {
    return corrupt(`${key}: a reference is inline text, [url] or [url, offset, length]`);
  }
  const url = render(value[0], {}, key);
  if (value.length === 1) return { kind: 'whole', url };
  const offset = value[1];
  const length = value[2];
  if (typeof offset !== 'number' || typeof length !== 'number' || !Number.isSafeInteger(offset) || !Number.isSafeInteger(length) || offset < 0 || length < 0) {
    return corrupt(`${key}: offset and length must be non-negative integers, got ${JSON.stringify(offset)} and ${JSON.stringify(length)}`);
  }
  return { kind: 'range', url, offset, length };
}

function expandGen(entry: JsonValue, i: number, chunks: Map<string, KerchunkChunk>, render: Render, corrupt: (what: string) => never): void {
  const what = `gen[${i}]`;
  if (!isJsonObject(entry)) return corrupt(`${what} is not an object`);
  const field = (name: string): string => {
    const v = entry[name];
    if (typeof v === 'number') return String(v);
    return typeof v === 'string' ? v : corrupt(`${what}.${name} is missing`);
  };
  const key = field('key');
  const url = field('url');
  const offset = 'offset' in entry ? field('offset') : undefined;
  const length = 'length' in entry ? field('length') : undefined;
  if ((offset === undefined) !== (length === undefined)) corrupt(`${what} has only one of offset and length`);
  const dims = entry.dimensions;
  if (!isJsonObject(dims)) return corrupt(`${what}.dimensions is not an object`);
  const axes = Object.entries(dims).map(([name, spec]): [string, number[]] => [name, dimensionValues(spec, `${what}.dimensions.${name}`, corrupt)]);
  const total = axes.reduce((n, [, values]) => n * values.length, 1);
  if (total + chunks.size > MAX_GENERATED_REFS) corrupt(`${what} makes ${total} references, more than ${MAX_GENERATED_REFS}`);
  const at = axes.map(() => 0);
  for (let n = 0; n < total; n++) {
    const vars: Record<string, number> = {};
    axes.forEach(([name, values], d) => (vars[name] = values[at[d] ?? 0] ?? 0));
    const k = render(key, vars, what);
    const u = render(url, vars, what);
    if (offset === undefined || length === undefined) chunks.set(k, { kind: 'whole', url: u });
    else {
      const o = Number(render(offset, vars, what));
      const l = Number(render(length, vars, what));
      if (!Number.isSafeInteger(o) || !Number.isSafeInteger(l) || o < 0 || l < 0) corrupt(`${what} gives ${k} offset ${o} and length ${l}`);
      chunks.set(k, { kind: 'range', url: u, offset: o, length: l });
    }
    for (let d = axes.length - 1; d >= 0; d--) {
      at[d] = (at[d] ?? 0) + 1;
      if ((at[d] ?? 0) < (axes[d]?.[1].length ?? 0)) break;
      at[d] = 0;
    }
  }
}

function dimensionValues(spec: JsonValue, what: string, corrupt: (what: string) => never): number[] {
  if (Array.isArray(spec)) return spec.map((v) => (typeof v === 'number' && Number.isSafeInteger(v) ? v : corrupt(`${what} holds a non-integer`)));
  if (!isJsonObject(spec)) return corrupt(`${what} is neither a list nor {start, stop, step}`);
  const int = (v: JsonValue | undefined, d: number) => (v === undefined ? d : typeof v === 'number' && Number.isSafeInteger(v) ? v : corrupt(`${what} has a non-integer bound`));
  const start = int(spec.start, 0);
  const stop = int(spec.stop, Number.NaN);
  const step = int(spec.step, 1);
  if (Number.isNaN(stop) || step <= 0) corrupt(`${what} needs a stop and a positive step`);
  const count = Math.max(0, Math.ceil((stop - start) / step));
  if (count > MAX_GENERATED_REFS) corrupt(`${what} has ${count} values, more than ${MAX_GENERATED_REFS}`);
  return Array.from({ length: count }, (_, i) => start + i * step);
}

/** Replaces each `{{ expression }}`: a template name, a variable, or integer arithmetic on variables. */
export function renderTemplate(text: string, templates: Readonly<Record<string, string>>, vars: Readonly<Record<string, number>>, fail: (why: string) => never): string {
  if (!text.includes('{{')) return text;
  return text.replace(/\{\{(.*?)\}\}/g, (_, expr: string) => {
    const name = expr.trim();
    if (Object.hasOwn(templates, name)) return templates[name] ?? '';
    return String(evaluate(name, vars, fail));
  });
}

/** Integer arithmetic: numbers, variables, + - * // % and parentheses (Python's floor division and modulo). */
function evaluate(expr: string, vars: Readonly<Record<string, number>>, fail: (why: string) => never): number {
  const tokens = expr.match(/\d+|[A-Za-z_]\w*|\/\/|[-+*%()]|\S/g) ?? [];
  let pos = 0;
  const peek = () => tokens[pos];
  const primary = (): number => {
    const t = tokens[pos++];
    if (t === undefined) return fail(`the expression ${JSON.stringify(expr)} ends too early`);
    if (t === '(') {
      const v = sum();
      if (tokens[pos++] !== ')') fail(`unbalanced parentheses in ${JSON.stringify(expr)}`);
      return v;
    }
    if (t === '-') return -primary();
    if (/^\d+$/.test(t)) return Number(t);
    if (/^[A-Za-z_]\w*$/.test(t) && Object.hasOwn(vars, t)) return vars[t] ?? 0;
    return fail(`${JSON.stringify(t)} in ${JSON.stringify(expr)} is not a number, a dimension of the entry or a template`);
  };
  const product = (): number => {
    let v = primary();
    for (let op = peek(); op === '*' || op === '//' || op === '%'; op = peek()) {
      pos++;
      const r = primary();
      if (op !== '*' && r === 0) fail(`division by zero in ${JSON.stringify(expr)}`);
      v = op === '*' ? v * r : op === '//' ? Math.floor(v / r) : v - Math.floor(v / r) * r;
    }
    return v;
  };
  const sum = (): number => {
    let v = product();
    for (let op = peek(); op === '+' || op === '-'; op = peek()) {
      pos++;
      const r = product();
      v = op === '+' ? v + r : v - r;
    }
    return v;
  };
  const value = sum();
  if (pos !== tokens.length) fail(`cannot read ${JSON.stringify(expr)} past ${JSON.stringify(tokens[pos])}`);
  if (!Number.isSafeInteger(value)) fail(`${JSON.stringify(expr)} is not an integer below 2^53`);
  return value;
}
