// `numcodecs.json2` (numcodecs' JSON, the object codec zarr-python 2 writes as "json2"): a chunk
// of strings as the JSON text Python's json module writes for numcodecs' item list
// (object-items.ts), with the configuration's ensure_ascii, indent and separators, UTF-8.
import { floeError, isFloeError } from '../../../errors.ts';
import { parseJson } from '../../json.ts';
import { cStrides } from '../../zarr/ndarray.ts';
import type { ArrayToBytesCodec } from '../array-codecs.ts';
import { checkKeys, corrupt, decodingGuard, invalidConfig, readBool, shown } from '../bytes-codec-support.ts';
import { PLAIN_CAPABILITIES, type ArrayCodecImplementation } from '../codec-implementation.ts';
import { toCContiguous } from '../contiguous.ts';
import { objectItems, stringsOfItems } from './object-items.ts';

const NAME = 'numcodecs.json2';
const KEYS = ['encoding', 'skipkeys', 'ensure_ascii', 'check_circular', 'allow_nan', 'sort_keys', 'indent', 'separators', 'strict'];
const utf8 = new TextEncoder();
const utf8Strict = new TextDecoder('utf-8', { fatal: true });

interface JsonLayout {
  readonly ensureAscii: boolean;
  /** Python's `indent`: null for one line, else the text of one level. */
  readonly indent: string | null;
  readonly itemSeparator: string;
}

export const json2Entry: ArrayCodecImplementation = {
  name: NAME,
  kind: 'array_to_bytes',
  capabilities: PLAIN_CAPABILITIES,
  zarrV3: (configuration, { spec }) => {
    checkKeys(NAME, configuration, KEYS);
    if (spec.dataType.kind !== 'string') throw floeError('UNSUPPORTED', `${NAME}: Floe reads json2 object arrays of strings, not ${spec.dataType.name}`);
    const encoding = configuration?.encoding ?? 'utf-8';
    if (typeof encoding !== 'string' || !['utf-8', 'utf8'].includes(encoding.toLowerCase())) throw floeError('UNSUPPORTED', `${NAME}: "encoding" ${shown(encoding)}: Floe reads UTF-8 only`);
    const layout = readLayout(configuration);
    return json2Codec(layout, { ...configuration });
  },
};

function json2Codec(layout: JsonLayout, configuration: Record<string, unknown>): ArrayToBytesCodec {
  return {
    kind: 'array_to_bytes',
    name: NAME,
    toJSON: () => ({ name: NAME, configuration }),
    encode(array, spec) {
      const strings = toCContiguous(array, spec.dataType).data as string[];
      return utf8.encode(pythonJson(objectItems(strings, spec.shape), layout, 0));
    },
    decode(bytes, spec) {
      const data = decodingGuard(NAME, () => stringsOfItems(NAME, parseChunk(utf8Strict.decode(bytes)), spec.shape));
      return { data, shape: [...spec.shape], stride: cStrides(spec.shape) };
    },
  };
}

/** A chunk's JSON text; malformed text is a damaged chunk, not bad metadata. */
function parseChunk(text: string): unknown {
  try {
    return parseJson(text, NAME, { nonFinite: true });
  } catch (err) {
    if (isFloeError(err, 'INVALID_METADATA')) throw corrupt(NAME, err.message, err);
    throw err;
  }
}

function readLayout(config: Record<string, unknown> | undefined): JsonLayout {
  const indent = config?.indent ?? null;
  if (indent !== null && typeof indent !== 'string' && !(Number.isInteger(indent) && (indent as number) >= 0)) {
    throw invalidConfig(NAME, `"indent" must be null, a count or a string, got ${shown(indent)}`);
  }
  const separators = config?.separators ?? (indent === null ? [',', ':'] : [', ', ': ']);
  if (!Array.isArray(separators) || separators.length !== 2 || typeof separators[0] !== 'string') {
    throw invalidConfig(NAME, `"separators" must be [item, key] strings, got ${shown(separators)}`);
  }
  return {
    ensureAscii: readBool(NAME, config, 'ensure_ascii', true),
    indent: typeof indent === 'number' ? ' '.repeat(indent) : (indent as string | null),
    itemSeparator: separators[0] as string,
  };
}

/** Python's json.dumps of lists of strings (and the int shape), as JSONEncoder lays them out. */
function pythonJson(value: unknown, layout: JsonLayout, level: number): string {
  if (typeof value === 'string') return pythonString(value, layout.ensureAscii);
  if (typeof value === 'number') return String(value);
  if (!Array.isArray(value)) throw corrupt(NAME, `cannot write ${typeof value} items`);
  if (value.length === 0) return '[]';
  const items = value.map((v) => pythonJson(v, layout, level + 1));
  if (layout.indent === null) return `[${items.join(layout.itemSeparator)}]`;
  const inner = `\n${layout.indent.repeat(level + 1)}`;
  return `[${inner}${items.join(layout.itemSeparator + inner)}\n${layout.indent.repeat(level)}]`;
}

const SHORT_ESCAPES: Readonly<Record<string, string>> = { '"': '\\"', '\\': '\\\\', '\b': '\\b', '\f': '\\f', '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** A string as Python's json writes it: ASCII-only with \uXXXX escapes (lower-case hex) when asked. */
function pythonString(s: string, ensureAscii: boolean): string {
  const pattern = ensureAscii ? /[\\"]|[^\x20-\x7e]/g : /[\x00-\x1f\\"]/g;
  return `"${s.replace(pattern, (ch) => SHORT_ESCAPES[ch] ?? `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`)}"`;
}
