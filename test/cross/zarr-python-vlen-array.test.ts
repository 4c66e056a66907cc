// numcodecs' vlen-array object arrays across zarr-python 2.13 / numcodecs 0.11 and Floe, one case
// per element dtype the codec takes (both byte orders where there are two, every fifth element
// empty): Floe reads each element as the typed array the dtype maps to, with the numbers
// zarr-python reads; the bytes form is the element bytes zarr-python holds; converted to v3 and
// imported with `floe import` the elements stay typed; Floe writes the same numbers from typed
// arrays and zarr-python reads them back. Expected values come from zarr-python reading a store
// (test/support/vlen-array-peer.py), the expected typed array of each dtype from the mapping in
// docs/zarr-v2.md (float16 from the flat float16 rule), never from Floe's own output.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openArray, openStore } from '../../src/engine/api.ts';
import { ZarrArray } from '../../src/engine/array.ts';
import { convertV2ToV3 } from '../../src/engine/convert-v2.ts';
import { MemoryStorage } from '../../src/engine/storage/memory.ts';
import { StorageStore } from '../../src/engine/store.ts';
import { V2Array } from '../../src/engine/v2-array.ts';
import { isFloeError } from '../../src/errors.ts';
import { parseDataType, type TypedArray } from '../../src/format/zarr/data-types.ts';
import { Repository, Storage } from '../../src/txn/index.ts';
import { floe } from '../cli/helpers.ts';
import { describeWithPythonZarr, PYTHON } from '../support/python-zarr.ts';

interface VlenCase {
  readonly name: string;
  readonly dtype: string;
  readonly shape: readonly number[];
  readonly chunks: readonly number[];
  readonly compressor: { readonly id: string; readonly level: number } | null;
}
type PlainItem = number | string;
interface PeerRead {
  readonly values: (PlainItem[] | null)[];
  readonly bytes: string[];
}

/** The typed array each element dtype reads into (docs/zarr-v2.md); f2 as flat float16 arrays read. */
const FLOAT16 = parseDataType('float16').allocate(0).constructor;
const CTOR: Readonly<Record<string, Function>> = {
  b1: Uint8Array, i1: Int8Array, i2: Int16Array, i4: Int32Array, i8: BigInt64Array,
  u1: Uint8Array, u2: Uint16Array, u4: Uint32Array, u8: BigUint64Array,
  f2: FLOAT16, f4: Float32Array, f8: Float64Array, c8: Float32Array, c16: Float64Array,
  M8: BigInt64Array, m8: BigInt64Array, S3: Uint8Array, V2: Uint8Array,
};
const ctorOf = (dtype: string): Function => CTOR[dtype.slice(1).replace(/\[.*\]$/, '')]!;

const DTYPES = [
  '|b1', '|i1', '<i2', '>i2', '<i4', '>i4', '<i8', '>i8', '|u1', '<u2', '>u2', '<u4', '>u4', '<u8', '>u8',
  '<f2', '>f2', '<f4', '>f4', '<f8', '>f8', '<c8', '>c8', '<c16', '>c16', '<M8[ns]', '>M8[ms]', '<m8[s]', '>m8[10s]', '|S3', '|V2',
];
const nameOf = (dtype: string) => dtype.replace('<', 'le-').replace('>', 'be-').replace('|', '').replace(/\[(\w+)\]/, '-$1');
const CASES: readonly VlenCase[] = DTYPES.map((dtype, i) => ({
  name: nameOf(dtype), dtype,
  // Every third case 2-d and gzip-compressed; the others 1-d with an edge chunk.
  ...(i % 3 === 0 ? { shape: [3, 4], chunks: [2, 3], compressor: { id: 'gzip', level: 1 } } : { shape: [7], chunks: [3], compressor: null }),
}));
const UNICODE: VlenCase = { name: 'unicode', dtype: '<U2', shape: [6], chunks: [4], compressor: null };
const PEER = path.join(import.meta.dirname, '../support/vlen-array-peer.py');

let dir = '';
let python: Record<string, PeerRead> = {};

function peer(command: 'write' | 'read', root: string, cases: readonly VlenCase[]): string {
  const file = path.join(dir, `${path.basename(root)}-cases.json`);
  writeFileSync(file, JSON.stringify(cases));
  return execFileSync(PYTHON, [PEER, command, root, file], { encoding: 'utf8', timeout: 120_000, maxBuffer: 64 * 1024 * 1024 });
}

/** An element's items as the peer prints them: bigint as decimal strings, non-finite floats by name. */
function plain(element: TypedArray): PlainItem[] {
  return Array.from(element as ArrayLike<number | bigint>, (v) => (typeof v === 'bigint' ? v.toString() : Number.isFinite(v) ? v : Number.isNaN(v) ? 'NaN' : v > 0 ? 'Infinity' : '-Infinity'));
}

/** The typed array holding the peer's plain items (what a user writes). */
function typedFrom(dtype: string, items: readonly PlainItem[]): TypedArray {
  const Ctor = ctorOf(dtype) as new (values: ArrayLike<number | bigint>) => TypedArray;
  const big = Ctor === BigInt64Array || Ctor === BigUint64Array;
  return new Ctor(items.map((v) => (big ? BigInt(v) : Number(v))) as ArrayLike<number>);
}

beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'floe-vlen-array-'));
});
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describeWithPythonZarr('vlen-array object arrays: Floe and zarr-python agree on every element dtype', () => {
  beforeAll(() => {
    peer('write', path.join(dir, 'python'), [...CASES, UNICODE]);
    python = JSON.parse(peer('read', path.join(dir, 'python'), [...CASES, UNICODE])) as Record<string, PeerRead>;
  }, 120_000);

  const src = () => openStore(path.join(dir, 'python'), { readOnly: true });

  it('zarr-python wrote every case, with empty elements', () => {
    expect(Object.keys(python).sort()).toEqual([...CASES, UNICODE].map((c) => c.name).sort());
    for (const c of CASES) expect(python[c.name]!.values.filter((v) => v?.length === 0).length, c.name).toBeGreaterThan(0);
  });

  it.each(CASES.map((c) => [c.name, c] as const))('Floe reads %s as typed arrays holding zarr-python\'s numbers', async (name, c) => {
    const array = await openArray(src(), `/${name}`);
    expect(array).toBeInstanceOf(V2Array);
    const result = await array.get();
    const elements = result.data as TypedArray[];
    expect(elements.every((e) => e.constructor === ctorOf(c.dtype)), `every element a ${ctorOf(c.dtype).name}`).toBe(true);
    expect(elements.map(plain)).toEqual(python[name]!.values);
    // The bytes form: each element's stored bytes, in the dtype's byte order.
    const raw = (await array.get(undefined, { vlenArray: 'bytes' })).data as Uint8Array[];
    expect(raw.map((b) => Buffer.from(b).toString('hex'))).toEqual(python[name]!.bytes);
  });

  it.each(CASES.map((c) => [c.name, c] as const))('%s converted to Zarr v3 keeps its element dtype and reads the same numbers', async (name, c) => {
    const dst = new StorageStore(new MemoryStorage());
    await convertV2ToV3(src(), dst, '/c', { srcPath: `/${name}` });
    const v3 = await ZarrArray.open(dst, '/c');
    expect([v3.dtype, v3.attributes['floe.vlen_array_dtype']]).toEqual(['binary', c.dtype]);
    expect(((await v3.get()).data as TypedArray[]).map(plain)).toEqual(python[name]!.values);
  });

  it('zarr-python reads what Floe wrote from typed arrays, every case', async () => {
    const dst = openStore(path.join(dir, 'floe'));
    for (const c of CASES) {
      const array = await V2Array.createAt(dst, `/${c.name}`, {
        zarrFormat: 2, shape: c.shape, chunks: c.chunks, dtype: '|O', filters: [{ id: 'vlen-array', dtype: c.dtype }], compressor: c.compressor, fillValue: null,
      });
      await array.set(undefined, python[c.name]!.values.map((items) => typedFrom(c.dtype, items ?? [])));
    }
    const back = JSON.parse(peer('read', path.join(dir, 'floe'), CASES)) as Record<string, PeerRead>;
    for (const c of CASES) expect(back[c.name], c.name).toEqual(python[c.name]);
  }, 120_000);

  it('U<n> elements have no typed form: UNSUPPORTED, and the bytes form still reads them', async () => {
    const array = await openArray(src(), '/unicode');
    const refused = await array.get().catch((e: unknown) => e);
    expect(isFloeError(refused, 'UNSUPPORTED') && refused.message).toMatch(/"<U2".*vlenArray: 'bytes'/);
    const raw = (await array.get(undefined, { vlenArray: 'bytes' })).data as Uint8Array[];
    expect(raw.map((b) => Buffer.from(b).toString('hex'))).toEqual(python.unicode!.bytes);
  });

  it('floe import keeps the element dtype; floe cat and floe query print the elements as numbers', async () => {
    const repoPath = path.join(dir, 'repo.icechunk');
    await Repository.create(Storage.newLocalFilesystem(repoPath));
    const cli = (...argv: string[]) => floe([...argv, '--repo', repoPath], { cwd: dir });
    expect((await cli('import', path.join(dir, 'python', 'be-i8'), '--path', '/v')).code).toBe(0);
    const cat = JSON.parse((await cli('cat', 'main:/v', '--json')).stdout) as { dtype: string; elementDtype: string; data: PlainItem[][] };
    expect(cat).toMatchObject({ dtype: 'binary', elementDtype: 'int64' });
    expect(cat.data.flat()).toEqual(python['be-i8']!.values.flat());
    const text = (await cli('cat', 'main:/v[4]')).stdout.trim();
    expect(text).toBe(`[${(python['be-i8']!.values[4] ?? []).join(', ')}]`);
    const queried = JSON.parse((await cli('query', '.from("/v")', '--json')).stdout) as { arrays: { elementDtype: string; data: PlainItem[][] }[] };
    expect(queried.arrays[0]).toMatchObject({ elementDtype: 'int64' });
    expect(queried.arrays[0]!.data.flat()).toEqual(python['be-i8']!.values.flat());
  }, 60_000);
});
