// Zarr v2 consolidated metadata, `.zmetadata`: {"zarr_consolidated_format": 1, "metadata": {key:
// document}}, every `.zgroup`, `.zarray` and `.zattrs` below a group by its key relative to the
// group (".zgroup", "a/.zarray"). zarr-python 2 writes it at the store root; zarr-python 3 in the
// group it consolidates; both are the same when the group is the root.
import { floeError } from '../../errors.ts';
import { isJsonObject, type JsonValue } from '../json.ts';
import { encodePythonDocument, readJsonObject } from '../numpy/documents.ts';
import type { PyJson } from '../numpy/python-json.ts';

export const ZMETADATA = '.zmetadata';

/** Documents by key relative to the consolidated group. */
export type V2ConsolidatedEntries = ReadonlyMap<string, JsonValue>;

export function parseZmetadata(input: Uint8Array, where = ZMETADATA): Map<string, JsonValue> {
  const doc = readJsonObject(input, where);
  if (doc.zarr_consolidated_format !== 1) {
    throw floeError('UNSUPPORTED', `"zarr_consolidated_format" ${JSON.stringify(doc.zarr_consolidated_format)} is not supported; Floe reads format 1`, { where });
  }
  if (!isJsonObject(doc.metadata)) throw floeError('INVALID_METADATA', '"metadata" must be an object of metadata documents by key', { where });
  return new Map(Object.entries(doc.metadata));
}

export function encodeZmetadata(entries: ReadonlyMap<string, JsonValue | PyJson>, where = ZMETADATA): Uint8Array {
  const metadata: { [key: string]: PyJson } = {};
  for (const [key, doc] of entries) metadata[key] = doc;
  return encodePythonDocument({ metadata, zarr_consolidated_format: 1 }, where);
}

/** True for the keys a `.zmetadata` holds. */
export function isV2MetadataKey(key: string): boolean {
  const name = key.slice(key.lastIndexOf('/') + 1);
  return name === '.zarray' || name === '.zgroup' || name === '.zattrs';
}
