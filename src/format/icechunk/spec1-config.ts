// Spec-1 `config.yaml`. Kept apart from the refs so the yaml package loads only when a spec-1
// repository is opened (spec1-repo.ts imports this module on demand).
import { isScalar, Pair, parseDocument, Scalar, visit, YAMLMap, type Document, type ScalarTag, type YAMLSeq } from 'yaml';
import { floeError } from '../../errors.ts';
import { limitExceeded, resourceLimits } from '../limits.ts';
import type { MetadataValue } from './metadata-value.ts';

// The reference wrote serde enums as YAML tags (`store: !s3_compatible {...}`, newtype variants
// as `!local_file_system ''`). Every application tag (`!name`, or a verbatim `!<uri>`) becomes a
// one-key object `{ name: value }`, the shape serde gives the same enum in JSON and FlexBuffers,
// so a store kind Floe does not know yet still reads as data instead of losing its tag. YAML's
// own tags (`!!str`, `!!int`, ...) are left to the yaml package. The yaml package has no
// catch-all tag resolver: it resolves an unknown tag's node as if untagged (plain scalars as
// strings) and warns, so the tagged nodes are rewrapped after composing.
const YAML_TAG_PREFIX = 'tag:yaml.org,2002:';

/** Parses `config.yaml`; application tags become `{ tag: value }` (tag without its `!`). */
export function decodeV1Config(bytes: Uint8Array, where?: string): MetadataValue {
  // A metadata document like zarr.json: held to the same size limit before it is parsed.
  const maxBytes = resourceLimits().jsonBytes;
  if (bytes.length > maxBytes) {
    throw limitExceeded('json-bytes', maxBytes, `config.yaml of ${bytes.length} bytes is over the ${maxBytes}-byte limit of a metadata document`, { actual: bytes.length, where });
  }
  try {
    const doc = parseDocument(new TextDecoder('utf-8', { fatal: true }).decode(bytes), { strict: true });
    const error = doc.errors[0];
    if (error) throw error;
    visit(doc, {
      Map: (_, node) => wrapTagged(doc, node),
      Seq: (_, node) => wrapTagged(doc, node),
      Scalar: (_, node) => wrapTagged(doc, node),
    });
    return (doc.toJS({ maxAliasCount: 100 }) ?? {}) as MetadataValue;
  } catch (err) {
    throw floeError('CORRUPT_OBJECT', `config.yaml does not parse: ${(err as Error).message}`, { where, cause: err });
  }
}

function wrapTagged(doc: Document, node: Scalar | YAMLMap | YAMLSeq): YAMLMap | undefined {
  const tag = node.tag;
  if (tag === undefined || tag.startsWith(YAML_TAG_PREFIX)) return undefined;
  delete node.tag;
  // An unknown tag made the yaml package read a plain scalar as a string: resolve it again as
  // an untagged scalar would be (`!count 12` is 12, `!flag true` is true).
  if (isScalar(node) && node.type === 'PLAIN' && typeof node.value === 'string') {
    const text = node.value;
    const byTest = doc.schema.tags.find((t): t is ScalarTag => t.default === true && !!t.test?.test(text));
    const fail = (message: string) => {
      throw new Error(message);
    };
    const resolved = byTest?.resolve(text, fail, {});
    if (resolved !== undefined) node.value = isScalar(resolved) ? resolved.value : resolved;
  }
  const wrapper = new YAMLMap(doc.schema);
  wrapper.items.push(new Pair(new Scalar(tag.startsWith('!') ? tag.slice(1) : tag), node));
  // Aliases name the anchor: it moves to the wrapper, so `*x` repeats the tagged value.
  if (node.anchor !== undefined) wrapper.anchor = node.anchor;
  delete node.anchor;
  return wrapper;
}
