// `numcodecs.categorize` (numcodecs' Categorize): strings stored as small integers, 1 + the index
// of their label (the last equal label when labels repeat), 0 for a string no label matches;
// reading maps 0 and unknown numbers to "". Under a fixed-width `dtype` ("<U3") numcodecs decodes
// into that width, so labels come back cut to its length; under "|O" whole.
import { floeError } from '../../../errors.ts';
import type { TypedArray } from '../../zarr/data-types.ts';
import { checkKeys, invalidConfig, shown } from '../bytes-codec-support.ts';
import { PLAIN_CAPABILITIES, type ArrayCodecImplementation } from '../codec-implementation.ts';
import { isBigIntType, readCodecDtype } from './dtype.ts';
import { elementwiseCodec } from './elementwise.ts';

const NAME = 'numcodecs.categorize';

export const categorizeEntry: ArrayCodecImplementation = {
  name: NAME,
  kind: 'array_to_array',
  capabilities: PLAIN_CAPABILITIES,
  zarrV3: (configuration, { spec }) => {
    checkKeys(NAME, configuration, ['labels', 'dtype', 'astype']);
    if (spec.dataType.kind !== 'string') throw floeError('UNSUPPORTED', `${NAME}: encodes string arrays only (NumPy "U" or object), got ${spec.dataType.name}`);
    const labels = readLabels(configuration?.labels);
    const width = textWidth(configuration?.dtype);
    const astype = readCodecDtype(NAME, { astype: configuration?.astype ?? '|u1' }, 'astype').dataType;
    if (astype.kind !== 'int' && astype.kind !== 'uint') throw floeError('UNSUPPORTED', `${NAME}: "astype" must be an integer type, got ${astype.name}`);
    const codes = new Map(labels.map((label, i) => [label, i + 1] as const));
    const decodedLabels = width === undefined ? labels : labels.map((l) => [...l].slice(0, width).join(''));
    const big = isBigIntType(astype);
    return elementwiseCodec<string[], TypedArray>({
      name: NAME,
      json: { name: NAME, configuration: { ...configuration } },
      decoded: spec.dataType,
      encoded: astype,
      encode: (strings) => {
        const out = astype.allocate(strings.length) as TypedArray;
        strings.forEach((s, i) => {
          const code = codes.get(s) ?? 0;
          (out as Float64Array)[i] = (big ? BigInt(code) : code) as number;
        });
        return out;
      },
      decode: (enc) => Array.from(enc as ArrayLike<number | bigint>, (code) => decodedLabels[Number(code) - 1] ?? ''),
    });
  },
};

function readLabels(value: unknown): string[] {
  if (!Array.isArray(value) || !value.every((l) => typeof l === 'string')) {
    throw invalidConfig(NAME, `"labels" must be a list of strings, got ${shown(value)}`);
  }
  return value as string[];
}

/** The character width of a "<U<n>" dtype; undefined for object ("|O") and str. */
function textWidth(dtype: unknown): number | undefined {
  if (dtype === undefined || dtype === null || dtype === '|O' || dtype === 'O' || dtype === 'object' || dtype === 'str') return undefined;
  const m = typeof dtype === 'string' ? /^[<>|=]?U(\d+)$/.exec(dtype) : null;
  if (!m) throw invalidConfig(NAME, `"dtype" must be a unicode ("<U<n>") or object ("|O") dtype, got ${shown(dtype)}`);
  return Number(m[1]);
}
