// Spec-1 repositories keep refs as small JSON files (here) and configuration as YAML
// (spec1-config.ts); enough is read to open them read-only. Keys come from keys.ts.
import { floeError, isFloeError } from '../../errors.ts';
import { parseJson, type JsonValue } from '../json.ts';
import { parseSnapshotId, type SnapshotId } from './ids.ts';

/** A ref file is one short line; anything near this size is not one. */
const MAX_REF_FILE_BYTES = 64 * 1024;

/** `refs/<kind>.<name>/ref.json`: `{"snapshot": "<base32 id>"}`. */
export function decodeV1Ref(bytes: Uint8Array, where?: string): SnapshotId {
  let doc: JsonValue;
  try {
    doc = parseJson(bytes, where, { maxBytes: MAX_REF_FILE_BYTES, maxDepth: 4 });
  } catch (err) {
    if (isFloeError(err, 'LIMIT_EXCEEDED')) throw err;
    throw floeError('CORRUPT_OBJECT', 'a spec-1 ref file is not JSON', { where, cause: err });
  }
  const snapshot = (doc as { snapshot?: unknown } | null)?.snapshot;
  if (typeof snapshot !== 'string') {
    throw floeError('CORRUPT_OBJECT', 'a spec-1 ref file lacks a "snapshot" string', { where });
  }
  try {
    return parseSnapshotId(snapshot);
  } catch (err) {
    throw floeError('CORRUPT_OBJECT', `a spec-1 ref names an invalid snapshot id '${snapshot}'`, { where, cause: err });
  }
}

export function encodeV1Ref(id: SnapshotId, toText: (id: SnapshotId) => string): Uint8Array {
  return new TextEncoder().encode(JSON.stringify({ snapshot: toText(id) }));
}
