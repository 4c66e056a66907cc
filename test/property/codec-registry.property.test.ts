// Every bytes -> bytes codec in the registry (codecs/registry.ts), in every format that builds it,
// keeps what its entry declares: round trips at any level in its range, the range's ends and
// default, out-of-range levels rejected or clamped as declared, decodeInto and a fixed encoded
// size exactly when declared, and a declared size bound that refuses output past maxBytes. A new
// codec is checked here as soon as it is in the registry; it only needs a row in BASE_CONFIG when
// its defaults cannot build it.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { allCodecImplementations, type BytesCodecImplementation, type LevelRange } from '../../src/format/codecs/registry.ts';
import type { BytesToBytesCodec } from '../../src/format/codecs/types.ts';
import { codeOf } from '../support/error-code.ts';

// Every implementation, the lazily loaded ones included.
const IMPLEMENTATIONS = await allCodecImplementations();

const RUNS = 40;

/** Random bytes, or runs that give the LZ coders matches to find. */
const bytes = fc.oneof(
  fc.uint8Array({ maxLength: 2000 }),
  fc
    .array(fc.tuple(fc.integer({ min: 0, max: 255 }), fc.integer({ min: 1, max: 300 })), { maxLength: 20 })
    .map((runs) => Uint8Array.from(runs.flatMap(([b, n]) => Array<number>(n).fill(b)))),
);

/** Configuration a form needs besides its level (lzma's raw format needs no optional package). */
const BASE_CONFIG: Record<string, Record<string, unknown>> = {
  'v1 lzma': { format: 3, filters: [{ id: 33, preset: 1 }] },
  'v3 blosc': { cname: 'lz4', shuffle: 'shuffle' },
  'v1 blosc': { cname: 'lz4', shuffle: 1 },
};

interface Form {
  readonly label: string;
  readonly entry: BytesCodecImplementation;
  /** Builds the codec with the base configuration plus `extra`. */
  create(extra: Record<string, unknown>): BytesToBytesCodec;
}

/** Each way a format builds a bytes codec: its v3 factory, and its v1 factory under each name. */
function formsOf(entry: BytesCodecImplementation): Form[] {
  const forms: Form[] = [];
  const { zarrV3, zarrV1 } = entry;
  if (zarrV3) {
    const label = `v3 ${entry.name}`;
    forms.push({ label, entry, create: (extra) => zarrV3({ ...BASE_CONFIG[label], ...extra }, { itemSize: 4 }) });
  }
  for (const name of zarrV1?.names ?? []) {
    const label = `v1 ${name}`;
    forms.push({ label, entry, create: (extra) => zarrV1!.create({ ...BASE_CONFIG[label], ...extra }, { itemSize: 4 }, name) });
  }
  return forms;
}

const FORMS = IMPLEMENTATIONS.flatMap((e) => (e.kind === 'bytes_to_bytes' ? formsOf(e) : []));

const same = (a: Uint8Array, b: Uint8Array): boolean => Buffer.from(a).equals(Buffer.from(b));

/** A level anywhere in the range, its ends more often than chance would pick them. */
function levelIn(levels: LevelRange | undefined): fc.Arbitrary<Record<string, unknown>> {
  if (!levels) return fc.constant({});
  const level = fc.oneof(fc.constantFrom(levels.min, levels.max), fc.integer({ min: levels.min, max: levels.max }));
  return level.map((l) => ({ [levels.key]: l }));
}

describe.each(FORMS.map((f) => [f.label, f] as const))('%s keeps its declared capabilities', (_label, form) => {
  const { capabilities } = form.entry;
  const { levels } = capabilities;
  /** Builds at the default level, or the lowest where the level is required. */
  const build = (): BytesToBytesCodec => form.create(levels ? { [levels.key]: levels.default ?? levels.min } : {});

  it('round-trips random bytes at any level in its range', () => {
    fc.assert(
      fc.property(levelIn(levels), bytes, (config, data) => {
        const codec = form.create(config);
        expect(same(codec.decode(codec.encode(data)), data)).toBe(true);
      }),
      { numRuns: RUNS },
    );
  });

  // Only codecs that declare it are held to it (not a skip: the case does not apply).
  if (levels) it('writes the level back, uses the default, and treats out-of-range levels as declared', () => {
    const range = levels!;
    const levelOf = (codec: BytesToBytesCodec) => codec.toJSON().configuration?.[range.key];
    for (const level of [range.min, range.max]) expect(levelOf(form.create({ [range.key]: level }))).toBe(level);
    if (range.default === undefined) expect(codeOf(() => form.create({}))).toBe('INVALID_METADATA');
    else expect(levelOf(form.create({}))).toBe(range.default);
    const data = new TextEncoder().encode('out of range '.repeat(20));
    for (const level of [range.min - 1, range.max + 1]) {
      if (range.outside === 'reject') {
        expect(codeOf(() => form.create({ [range.key]: level }))).toBe('INVALID_METADATA');
      } else {
        const codec = form.create({ [range.key]: level });
        expect(same(codec.decode(codec.encode(data)), data)).toBe(true);
      }
    }
  });

  it('has decodeInto and computeEncodedSize exactly when it declares them', () => {
    const codec = build();
    expect(typeof codec.decodeInto === 'function').toBe(capabilities.decodeInto);
    expect(typeof codec.computeEncodedSize === 'function').toBe(capabilities.fixedEncodedSize);
  });

  // Only codecs that declare it are held to it (not a skip: the case does not apply).
  if (capabilities.decodeInto) it('decodes into a buffer of the known size, and declines a smaller one', () => {
    fc.assert(
      fc.property(bytes, (data) => {
        const codec = build();
        const encoded = codec.encode(data);
        const out = new Uint8Array(data.length);
        expect(codec.decodeInto!(encoded, out)).toBe(data.length);
        expect(same(out, data)).toBe(true);
        if (data.length > 0) expect(codec.decodeInto!(encoded, new Uint8Array(data.length - 1))).toBe(-1);
      }),
      { numRuns: RUNS },
    );
  });

  // Only codecs that declare it are held to it (not a skip: the case does not apply).
  if (capabilities.fixedEncodedSize) it('encodes to the size it computes', () => {
    fc.assert(
      fc.property(bytes, (data) => {
        const codec = build();
        expect(codec.encode(data).length).toBe(codec.computeEncodedSize!(data.length));
      }),
      { numRuns: RUNS },
    );
  });

  // Only codecs that declare it are held to it (not a skip: the case does not apply).
  if (capabilities.boundedDecode) it('decodes up to maxBytes and refuses output past it', () => {
    fc.assert(
      fc.property(bytes, (data) => {
        const codec = build();
        const encoded = codec.encode(data);
        expect(same(codec.decode(encoded, { maxBytes: data.length }), data)).toBe(true);
        if (data.length > 0) expect(codeOf(() => codec.decode(encoded, { maxBytes: data.length - 1 }))).toBe('LIMIT_EXCEEDED');
      }),
      { numRuns: RUNS },
    );
  });
});
