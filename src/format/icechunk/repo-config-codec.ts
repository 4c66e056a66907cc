// Reads, validates, writes and merges repository configurations by walking the reference's
// table (repo-config-schema.ts). One reader serves both sides: the public shape a caller passes
// (camelCase, unknown fields refused as likely typos) and the stored serde shape (snake_case,
// unknown fields ignored, as the reference does). Both give the canonical public model: absent
// Options and nulls dropped, u64 values a number when safe. Writing overlays the model on the
// previously stored value, so fields a newer reference stored and Floe does not know survive.
import { floeError } from '../../errors.ts';
import type { MetadataValue } from './metadata-value.ts';
import type { RepositoryConfig } from './repo-config.ts';
import { camelCase, fieldName, INTEGER_RANGES, REPOSITORY_CONFIG, type Field, type Schema } from './repo-config-schema.ts';

type Side = 'public' | 'stored';
type Struct = Extract<Schema, { kind: 'struct' }>;
type Enum = Extract<Schema, { kind: 'enum' }>;
type Json = { [key: string]: MetadataValue };

interface Context {
  side: Side;
  where: string | undefined;
}

/**
 * Checks a configuration a caller passed against the reference's types and ranges and returns
 * its canonical copy. Throws `INVALID_CONFIG` naming the first bad field, its value and what it
 * accepts.
 */
export function validateRepoConfig(config: unknown): RepositoryConfig {
  return read(REPOSITORY_CONFIG, config ?? {}, '', { side: 'public', where: undefined }) as RepositoryConfig;
}

/**
 * Reads the stored (serde) form. `null` is the empty configuration. Throws `INVALID_CONFIG` with
 * the stored field path for a value the reference could not read either.
 */
export function decodeStoredConfig(value: MetadataValue, where?: string): RepositoryConfig {
  if (value === null) return {};
  return read(REPOSITORY_CONFIG, value, '', { side: 'stored', where }) as RepositoryConfig;
}

/**
 * The stored form of a configuration, validated first: every field of every struct present,
 * in the reference's order, null when unset. Fields of `previous` (the stored value it
 * replaces) that Floe does not know are carried over, at every struct level.
 */
export function encodeStoredConfig(config: RepositoryConfig, previous: MetadataValue = null): MetadataValue {
  return write(REPOSITORY_CONFIG, validateRepoConfig(config), previous);
}

/** Whether a configuration sets nothing (the reference then stores no config at all). */
export function isEmptyConfig(config: RepositoryConfig): boolean {
  return Object.values(config).every((v) => v === undefined);
}

/**
 * The reference's merge: `override`'s fields win; nested settings (compression, caching,
 * storage and its parts, manifest, virtual location compression, repo update retries) merge
 * field by field; preload, splitting and the virtual chunk containers are replaced whole.
 */
export function mergeRepoConfig(base: RepositoryConfig, override: RepositoryConfig | undefined): RepositoryConfig {
  if (!override) return base;
  return merge(REPOSITORY_CONFIG, validateRepoConfig(base), validateRepoConfig(override)) as RepositoryConfig;
}

// --- reading ---

function read(schema: Schema, value: unknown, path: string, cx: Context): unknown {
  switch (schema.kind) {
    case 'lazy':
      return read(schema.get(), value, path, cx);
    case 'integer':
      return readInteger(schema, value, path, cx);
    case 'bool':
      if (typeof value !== 'boolean') fail(path, value, 'true or false', cx);
      return value;
    case 'string':
      if (typeof value !== 'string') fail(path, value, 'a string', cx);
      return value;
    case 'struct':
      return readStruct(schema, value, path, cx);
    case 'map': {
      const map = asMap(value, path, 'a map with string keys', cx);
      return Object.fromEntries(Object.entries(map).map(([k, v]) => [checkedKey(k, path, cx), read(schema.value, v, `${path}[${JSON.stringify(k)}]`, cx)]));
    }
    case 'list':
      if (!Array.isArray(value)) fail(path, value, 'a list', cx);
      return value.map((item, i) => read(schema.item, item, `${path}[${i}]`, cx));
    case 'pair':
      if (!Array.isArray(value) || value.length !== 2) fail(path, value, 'a list of two items', cx);
      return schema.items.map((item, i) => read(item, value[i], `${path}[${i}]`, cx));
    case 'enum':
      return readEnum(schema, value, path, cx);
    case 'named': {
      const hit = schema.values.find(([pub, stored]) => (cx.side === 'public' ? pub : stored) === value);
      if (!hit) fail(path, value, `one of: ${schema.values.map(([pub, stored]) => (cx.side === 'public' ? `${pub} (${stored})` : stored)).join(', ')}`, cx);
      return hit[0];
    }
    case 'http':
      return readHttp(value, path, cx);
  }
}

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

function readInteger(schema: Extract<Schema, { kind: 'integer' }>, value: unknown, path: string, cx: Context): number | bigint {
  const [lowest, highest] = INTEGER_RANGES[schema.type];
  const least = schema.nonZero && lowest < 1n ? 1n : lowest;
  const big = typeof value === 'bigint' ? value : typeof value === 'number' && Number.isInteger(value) ? BigInt(value) : undefined;
  if (big === undefined || big < least || big > highest) {
    fail(path, value, `an integer in ${least}..=${highest} (${schema.type}${schema.nonZero ? ', not 0' : ''})`, cx);
  }
  return big >= -MAX_SAFE && big <= MAX_SAFE ? Number(big) : big;
}

function readStruct(schema: Struct, value: unknown, path: string, cx: Context): Record<string, unknown> {
  const map = asMap(value, path, `a map of ${schema.name} fields`, cx);
  // A misspelt field is named as such rather than as the required field it leaves missing.
  if (cx.side === 'public') refuseUnknownFields(schema, map, path, cx);
  const out: Record<string, unknown> = {};
  for (const f of schema.fields) {
    const name = fieldName(schema, f, cx.side);
    const publicName = fieldName(schema, f, 'public');
    const raw = map[name];
    const given = cx.side === 'stored' && f.storedLegacy ? (f.storedLegacy(raw) ?? raw) : raw;
    if (given === undefined || given === null) {
      if (f.absentIs !== undefined) out[publicName] = f.absentIs;
      else if (f.required) fail(join(path, name), given, `a value: ${schema.name} requires it`, cx);
      continue;
    }
    out[publicName] = read(f.schema, given, join(path, name), cx);
  }
  return out;
}

/** A caller's unknown field is most likely a typo: refused, where the reference would drop it silently. */
function refuseUnknownFields(schema: Struct, map: Record<string, unknown>, path: string, cx: Context): void {
  const known = schema.fields.map((f) => fieldName(schema, f, 'public'));
  for (const [key, v] of Object.entries(map)) {
    if (v !== undefined && !known.includes(key)) fail(join(path, key), v, `one of the ${schema.name} fields: ${known.join(', ')}`, cx);
  }
}

function readEnum(schema: Enum, value: unknown, path: string, cx: Context): unknown {
  const napi = schema.napi && cx.side === 'public';
  const tagged = napi ? napiTagged(schema, value) : serdeTagged(value);
  const tag = tagged && cx.side === 'stored' ? (schema.storedAliases?.[tagged.tag] ?? tagged.tag) : tagged?.tag;
  if (!tagged || tag === undefined || !Object.hasOwn(schema.variants, tag)) fail(path, value, enumAllowed(schema, napi === true), cx);
  const variant = schema.variants[tag];
  if (variant === null || variant === undefined) {
    if (tagged.body !== undefined && tagged.body !== null) fail(path, value, `${JSON.stringify(tag)} alone: ${tag} takes no value`, cx);
    return schema.napi ? { type: pascalCase(tag) } : tag;
  }
  if (!tagged.hasBody) fail(path, value, napi ? `{ type: '${pascalCase(tag)}', field0: ... }` : `{ ${tag}: ... }: ${tag} takes a value`, cx);
  const body = read(variant, tagged.body, join(path, napi ? 'field0' : tag), cx);
  return schema.napi ? { type: pascalCase(tag), field0: body } : { [tag]: body };
}

interface Tagged {
  tag: string;
  body: unknown;
  hasBody: boolean;
}

/** serde's form: `"unit"` or `{ variant: value }` (a unit variant also as `{ unit: null }`). */
function serdeTagged(value: unknown): Tagged | undefined {
  if (typeof value === 'string') return { tag: value, body: undefined, hasBody: false };
  if (!isMap(value)) return undefined;
  const entries = Object.entries(value);
  const [first] = entries;
  return entries.length === 1 && first ? { tag: first[0], body: first[1], hasBody: true } : undefined;
}

/** The reference JS API's form: `{ type: 'S3Compatible', field0: ... }`. */
function napiTagged(schema: Enum, value: unknown): Tagged | undefined {
  if (!isMap(value) || typeof value.type !== 'string') return undefined;
  const type = value.type;
  const tag = Object.keys(schema.variants).find((t) => pascalCase(t) === type);
  if (tag === undefined || Object.keys(value).some((k) => k !== 'type' && k !== 'field0')) return undefined;
  return { tag, body: value.field0, hasBody: 'field0' in value };
}

function enumAllowed(schema: Enum, napi: boolean): string {
  const names = Object.entries(schema.variants).map(([tag, variant]) =>
    napi ? `{ type: '${pascalCase(tag)}'${variant ? ', field0' : ''} }` : variant ? `{ ${tag}: ... }` : JSON.stringify(tag),
  );
  return `one of the ${schema.name} variants: ${names.join(', ')}`;
}

/** HttpConfig: public `{ opts, headers }`; stored with the opts flattened next to `headers`. */
function readHttp(value: unknown, path: string, cx: Context): { opts: Record<string, string>; headers: Record<string, string> } {
  const map = asMap(value, path, 'a map of HTTP options', cx);
  const strings = (v: unknown, at: string) => read({ kind: 'map', value: { kind: 'string' } }, v ?? {}, at, cx) as Record<string, string>;
  const headers = strings(map.headers, join(path, 'headers'));
  if (cx.side === 'public') {
    refuseUnknownFields({ kind: 'struct', name: 'HttpConfig', naming: 'snake', fields: [httpField('opts'), httpField('headers')] }, map, path, cx);
    const opts = strings(map.opts, join(path, 'opts'));
    if ('headers' in opts) fail(join(path, 'opts.headers'), opts.headers, 'any option name but "headers", which the stored form keeps for the headers', cx);
    return { opts, headers };
  }
  const { headers: _headers, opts: legacy, ...flat } = map;
  // Floe before issue 18 stored `{ opts: {...}, headers: {...} }`; the reference flattens the options.
  if (isMap(legacy)) return { opts: { ...strings(flat, path), ...strings(legacy, join(path, 'opts')) }, headers };
  return { opts: strings(legacy === undefined ? flat : { ...flat, opts: legacy }, path), headers };
}

const httpField = (name: string): Field => ({ name, schema: { kind: 'map', value: { kind: 'string' } } });

/** FlexBuffers keys end at a NUL byte: such a key would come back cut short. */
function checkedKey(key: string, path: string, cx: Context): string {
  if (key.includes('\u0000')) fail(`${path}[${JSON.stringify(key)}]`, key, 'a key without NUL characters (stored map keys end at NUL)', cx);
  return key;
}

// --- writing ---

function write(schema: Schema, value: unknown, previous: MetadataValue | undefined): MetadataValue {
  switch (schema.kind) {
    case 'lazy':
      return write(schema.get(), value, previous);
    case 'integer':
    case 'bool':
    case 'string':
      return value as MetadataValue;
    case 'struct':
      return writeStruct(schema, value as Record<string, unknown>, previous);
    case 'map': {
      const prior = isMap(previous) ? previous : {};
      return Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, write(schema.value, v, prior[k])]));
    }
    case 'list':
      return (value as unknown[]).map((item) => write(schema.item, item, undefined));
    case 'pair':
      return schema.items.map((item, i) => write(item, (value as unknown[])[i], undefined));
    case 'enum':
      return writeEnum(schema, value, previous);
    case 'named': {
      const hit = schema.values.find(([pub]) => pub === value);
      return hit ? hit[1] : null;
    }
    case 'http': {
      const { opts, headers } = value as { opts: Record<string, string>; headers: Record<string, string> };
      return Object.keys(headers).length > 0 ? { ...opts, headers } : { ...opts };
    }
  }
}

function writeStruct(schema: Struct, value: Record<string, unknown>, previous: MetadataValue | undefined): Json {
  const prior = isMap(previous) ? previous : {};
  const out: Json = {};
  for (const f of schema.fields) {
    const v = value[fieldName(schema, f, 'public')];
    out[f.name] = v === undefined || v === null ? (f.absentIs ?? null) : write(f.schema, v, prior[f.name]);
  }
  for (const [key, v] of Object.entries(prior)) if (!(key in out)) out[key] = v;
  return out;
}

function writeEnum(schema: Enum, value: unknown, previous: MetadataValue | undefined): MetadataValue {
  const tagged = schema.napi ? napiTagged(schema, value) : serdeTagged(value);
  if (!tagged) return null; // unreachable for a validated value
  const variant = schema.variants[tagged.tag];
  if (variant === null || variant === undefined) return tagged.tag;
  const prior = isMap(previous) ? previous[tagged.tag] : undefined;
  return { [tagged.tag]: write(variant, tagged.body, prior) };
}

// --- merging ---

function merge(schema: Schema, base: unknown, override: unknown): unknown {
  if (override === undefined) return base;
  if (base === undefined || schema.kind !== 'struct') return override;
  const b = base as Record<string, unknown>;
  const o = override as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const f of schema.fields) {
    const name = fieldName(schema, f, 'public');
    const merged = f.mergeReplaces ? (o[name] ?? b[name]) : merge(f.schema, b[name], o[name]);
    if (merged !== undefined) out[name] = merged;
  }
  return out;
}

// --- helpers ---

function isMap(value: unknown): value is Record<string, MetadataValue> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Uint8Array);
}

function asMap(value: unknown, path: string, allowed: string, cx: Context): Record<string, unknown> {
  if (!isMap(value)) fail(path, value, allowed, cx);
  return value;
}

const join = (path: string, name: string): string => (path === '' ? name : `${path}.${name}`);

/** `s3_compatible` → `S3Compatible`. */
function pascalCase(tag: string): string {
  const camel = camelCase(tag);
  return camel.charAt(0).toUpperCase() + camel.slice(1);
}

function show(value: unknown): string {
  if (value === undefined) return 'absent';
  if (typeof value === 'bigint') return value.toString();
  const text = JSON.stringify(value, (_, v: unknown) => (typeof v === 'bigint' ? v.toString() : v)) ?? String(value);
  return text.length > 120 ? `${text.slice(0, 117)}...` : text;
}

function fail(field: string, value: unknown, allowed: string, cx: Context): never {
  const where = field === '' ? 'the configuration' : `config field ${field}`;
  const what = cx.side === 'public'
    ? 'fix it and retry; nothing was written'
    : 'the stored configuration cannot be read (the reference Icechunk cannot open it either); save a valid one with saveConfig';
  throw floeError('INVALID_CONFIG', `${where} is ${show(value)}, but must be ${allowed}: ${what}`, {
    where: cx.where,
    details: { field: field === '' ? '(root)' : field, value: show(value), allowed },
  });
}
