// Zarr v2 arrays as `V2Array.createAt` takes them: every v1 dtype (v1-dtypes.ts) with its fill in
// zarr-python 2's form (base64 for bytes and records), plus datetime64/timedelta64 with units and
// vlen-utf8 object arrays; C or F order; "." or "/" separators; the lossless numcodecs compressors
// (zlib, gzip, bz2, lzma, blosc, zstd, lz4, a checksum) or none; delta filters on integers of
// either byte order, then maybe a bytes filter (shuffle, a checksum). Each case carries what the
// model needs and whether conversion to v3 takes it (every case, since issue 21's numcodecs codecs).
import fc from '../fast-check.ts';
import type { Arbitrary } from 'fast-check';
import type { V2ArrayInput } from '../../engine/v2-array.ts';
import { checkedAt } from '../../engine/indexing.ts';
import type { JsonValue } from '../../format/json.ts';
import type { NumcodecsConfig } from '../../format/numpy/numcodecs.ts';
import { randomElements } from './chunk-data.ts';
import { dataTypeNamed, intMemory, type ElementValues, type TestDataType } from './data-types.ts';
import { v1DtypeArb, type V1Dtype } from './v1-dtypes.ts';
import { unicodeValues } from './v1-metadata.ts';

/** A generated Zarr v2 array: what `V2Array.createAt` takes, and what the model needs to check it. */
export interface V2Case {
  readonly input: V2ArrayInput;
  readonly dtype: TestDataType;
  /** What an unwritten element reads as: memory bytes (zeros for a null fill), or one string. */
  readonly fill: Uint8Array | readonly string[];
  /** `n` element values from `seed` that the dtype can hold. */
  values(n: number, seed: number): ElementValues;
  /** Whether convertV2ToV3 takes it: every compressor has a v3 codec Floe writes. */
  readonly convertible: boolean;
}

interface V2Dtype {
  readonly json: V2ArrayInput['dtype'];
  readonly dtype: TestDataType;
  readonly fill: JsonValue;
  readonly fillMemory: Uint8Array | readonly string[];
  readonly chars: number;
}

const b64 = (bytes: Uint8Array): string => Buffer.from(bytes).toString('base64');

/** A v1 dtype with its fill in v2's form: base64 for S, V and records (which v1 could only leave null). */
const fromV1 = (d: V1Dtype): Arbitrary<V2Dtype> => {
  const raw = typeof d.json !== 'string' || /^\|[SV]/.test(d.json);
  if (!raw) return fc.constant({ json: d.json, dtype: d.dtype, fill: d.fill, fillMemory: d.fillMemory, chars: d.chars });
  const memory = d.fillMemory as Uint8Array;
  return fc.boolean().map((nullFill) => ({
    json: d.json, dtype: d.dtype, chars: 0,
    fill: nullFill ? null : b64(memory), fillMemory: nullFill ? new Uint8Array(memory.length) : memory,
  }));
};

const NAT = -(2n ** 63n);
const datetime: Arbitrary<V2Dtype> = fc
  .record({
    typestr: fc.constantFrom('<M8[ns]', '>M8[s]', '<m8[ms]', '<M8[D]', '>m8[10us]'),
    fill: fc.oneof(fc.constant<JsonValue>('NaT'), fc.integer({ min: -1e9, max: 1e9 }), fc.constant<JsonValue>(null)),
  })
  .map(({ typestr, fill }) => ({
    json: typestr, dtype: dataTypeNamed('int64'), fill, chars: 0,
    fillMemory: intMemory('int64', fill === 'NaT' ? NAT : BigInt((fill as number | null) ?? 0)),
  }));

const strings: Arbitrary<V2Dtype> = fc.constantFrom('', 'fill').map((fill) => ({ json: 'string', dtype: dataTypeNamed('string'), fill, fillMemory: [fill], chars: 0 }));

const dtypeArb: Arbitrary<V2Dtype> = fc.oneof({ arbitrary: v1DtypeArb(true).chain(fromV1), weight: 6 }, datetime, strings);

const compressor: Arbitrary<NumcodecsConfig | null> = fc.oneof(
  fc.constant(null),
  fc.integer({ min: 0, max: 9 }).map((level) => ({ id: 'zlib', level })),
  fc.integer({ min: 0, max: 9 }).map((level) => ({ id: 'gzip', level })),
  fc.integer({ min: 1, max: 9 }).map((level) => ({ id: 'bz2', level })),
  fc.constantFrom(-1, 0, 4, 10).map((check) => ({ id: 'lzma', format: 1, check, preset: null, filters: null })),
  fc.record({ cname: fc.constantFrom('blosclz', 'lz4', 'lz4hc', 'snappy', 'zlib', 'zstd'), clevel: fc.integer({ min: 0, max: 9 }), shuffle: fc.constantFrom(-1, 0, 1, 2) })
    .map((c) => ({ id: 'blosc', ...c, blocksize: 0 })),
  fc.integer({ min: -5, max: 19 }).map((level) => ({ id: 'zstd', level })),
  fc.integer({ min: 1, max: 20 }).map((acceleration) => ({ id: 'lz4', acceleration })),
  fc.constantFrom({ id: 'crc32' }, { id: 'adler32' }, { id: 'fletcher32' }, { id: 'jenkins_lookup3', initval: 0, prefix: null }),
);

/** Filters that work on bytes, after delta and before the compressor. */
const bytesFilter: Arbitrary<NumcodecsConfig | null> = fc.oneof(
  { arbitrary: fc.constant(null), weight: 3 },
  fc.constantFrom(1, 2, 4, 8).map((elementsize) => ({ id: 'shuffle', elementsize })),
  fc.constantFrom({ id: 'crc32' }, { id: 'adler32', location: 'end' }),
);

const DELTA_TYPES = /^(\|[iu]1|[<>][iu][248])$/;

/** fast-check arbitrary of Zarr v2 arrays (see the file comment). */
export function v2ArrayInputArb(): Arbitrary<V2Case> {
  return fc
    .record({
      dt: dtypeArb,
      dims: fc.array(fc.record({ chunk: fc.integer({ min: 1, max: 4 }), extra: fc.nat(5) }), { minLength: 1, maxLength: 3 }),
      compressor,
      delta: fc.boolean(),
      bytes: bytesFilter,
      order: fc.constantFrom('C' as const, 'F' as const),
      separator: fc.constantFrom('.' as const, '/' as const),
    })
    .map(({ dt, dims, compressor: c, delta, bytes, order, separator }): V2Case => {
      const deltaFilter = delta && typeof dt.json === 'string' && DELTA_TYPES.test(dt.json) ? [{ id: 'delta', dtype: dt.json }] : [];
      // Bytes filters on fixed-size elements (an object array's filters follow its object codec).
      const bytesFilters = bytes && dt.json !== 'string' ? [bytes] : [];
      const filters = deltaFilter.length + bytesFilters.length > 0 ? [...deltaFilter, ...bytesFilters] : null;
      return {
        dtype: dt.dtype,
        fill: dt.fillMemory,
        convertible: true,
        values: (n, seed) => (dt.chars > 0
          ? unicodeValues(dt.chars, checkedAt(dt.fillMemory as readonly string[], 0, 'INVALID_ARGUMENT', 'string fill value'), n, seed)
          : randomElements(dt.dtype, dt.fillMemory, n, seed)),
        input: {
          zarrFormat: 2, shape: dims.map((d) => d.chunk + d.extra), chunks: dims.map((d) => d.chunk), dtype: dt.json,
          compressor: c, filters, fillValue: dt.fill, order, dimensionSeparator: separator,
        },
      };
    });
}
