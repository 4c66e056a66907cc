// The JSON documents of Zarr v1 and v2 (`meta`/`attrs`, `.zarray`/`.zgroup`/`.zattrs`): UTF-8
// text of Python-flavoured JSON (bare NaN/Infinity allowed), written back the way zarr-python
// wrote them (sorted keys, indent 4, ASCII). Field readers fail with INVALID_METADATA. Both ways
// are held to the JSON size and depth limits (format/json.ts), like every document.
import { floeError } from '../../errors.ts';
import { isJsonObject, type JsonValue } from '../json.ts';
import type { Attributes } from '../zarr/metadata.ts';
import { parsePythonJson, stringifyPythonJson, type PyJson } from './python-json.ts';

/** A metadata document's top-level object. */
export function readJsonObject(input: Uint8Array | string, where: string, what = 'the document'): { [key: string]: JsonValue } {
  const doc = parsePythonJson(input, where);
  if (!isJsonObject(doc)) invalid(where, `${what} must be a JSON object`);
  return doc;
}

/** Refuses (LIMIT_EXCEEDED) a document readJsonObject would refuse to read back, naming `where`. */
export function encodePythonDocument(doc: PyJson, where?: string): Uint8Array {
  return new TextEncoder().encode(stringifyPythonJson(doc, 4, { where }));
}

export function parseAttributesDocument(input: Uint8Array, where: string): Attributes {
  return readJsonObject(input, where, 'attributes');
}

export function encodeAttributesDocument(attrs: Attributes, where?: string): Uint8Array {
  return encodePythonDocument(attrs as PyJson, where);
}

export function intList(value: JsonValue | undefined, min: number, field: string, where: string): number[] {
  if (!Array.isArray(value) || !value.every((n) => typeof n === 'number' && Number.isSafeInteger(n) && n >= min)) {
    invalid(where, `"${field}" must be a list of integers >= ${min}, got ${JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v))}`);
  }
  return value as number[];
}

export function invalid(where: string, why: string): never {
  throw floeError('INVALID_METADATA', why, { where });
}
