// Spec-1 repositories keep refs as small JSON files and configuration as YAML; enough is read
// here to open them read-only. Keys come from keys.ts.
import { parse as parseYaml, type Tags } from 'yaml';
import { floeError } from '../../errors.ts';
import { parseSnapshotId, type SnapshotId } from './ids.ts';
import type { MetadataValue } from './metadata-value.ts';

/** `refs/<kind>.<name>/ref.json`: `{"snapshot": "<base32 id>"}`. */
export function decodeV1Ref(bytes: Uint8Array, where?: string): SnapshotId {
  let doc: unknown;
  try {
    doc = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch (err) {
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

// The reference wrote serde enums as YAML tags (`store: !s3_compatible {...}`). Each tag becomes
// a one-key object `{ s3_compatible: ... }`, the same shape serde uses in JSON and FlexBuffers.
const TAGGED_STORES = ['s3_compatible', 's3', 'gcs', 'azure', 'tigris', 'local_file_system', 'http', 'r2', 'in_memory'];
const customTags: Tags = TAGGED_STORES.flatMap((name) =>
  (['map', 'scalar', 'seq'] as const).map((collection) => ({
    tag: `!${name}`,
    collection: collection === 'scalar' ? undefined : collection,
    resolve: (value: unknown) => ({ [name]: toPlain(value) }),
  })) as Tags,
);

function toPlain(value: unknown): unknown {
  if (value && typeof value === 'object' && 'toJSON' in value && typeof value.toJSON === 'function') return value.toJSON();
  return value;
}

/** Parses `config.yaml`; unknown tags are kept as `{ tag: value }` rather than failing. */
export function decodeV1Config(bytes: Uint8Array, where?: string): MetadataValue {
  try {
    const doc: unknown = parseYaml(new TextDecoder('utf-8', { fatal: true }).decode(bytes), {
      customTags,
      strict: true,
      maxAliasCount: 100,
    });
    return (doc ?? {}) as MetadataValue;
  } catch (err) {
    throw floeError('CORRUPT_OBJECT', `config.yaml does not parse: ${(err as Error).message}`, { where, cause: err });
  }
}
