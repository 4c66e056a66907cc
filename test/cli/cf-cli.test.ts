// Issue 33: `floe cat/query/show` and `floe serve` show CF-decoded values by default, checked
// against xarray. test/support/cf-cli-peer.py has xarray's to_zarr write a small CF dataset (int16
// packed temperature with a fill value, a noleap time axis with bounds, flags, coordinates,
// cell_methods, grid_mapping) and prints what `xr.open_zarr(...).load()` decodes; `floe import`
// brings the store into a repository and the CLI and the server must show xarray's values (floats
// bit-equal, dates as cftime's ISO text), and the stored values with --raw / decode=none.
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createRepositoryServer, type RepositoryServer } from '../../src/cli/serve/repository-server.ts';
import { decodeBinary } from '../../src/query/result-encoding.ts';
import { Repository, Storage } from '../../src/txn/index.ts';
import { describeWithPythonZarr, PYTHON } from '../support/python-zarr.ts';
import { floe, removeTempDirs, tempDir } from './helpers.ts';

const PEER = path.join(path.dirname(fileURLToPath(import.meta.url)), '../support/cf-cli-peer.py');

interface Variable { dtype: string; shape: number[]; stored: number[]; hex?: string; dates?: (string | null)[]; calendar?: string }
interface Oracle { versions: Record<string, string>; variables: Record<string, Variable> }

/** xarray's decoded floats, as JSON shows them: numbers, "NaN" where missing. */
function xarrayValues(v: Variable): (number | string)[] {
  const bytes = Uint8Array.from(Buffer.from(v.hex!, 'hex'));
  const values = v.dtype === 'float32' ? new Float32Array(bytes.buffer) : v.dtype === 'float64' ? new Float64Array(bytes.buffer) : new Uint8Array(bytes.buffer);
  return Array.from(values, (x) => (Number.isNaN(x) ? 'NaN' : x));
}

describeWithPythonZarr('CF in the CLI and floe serve, against xarray', () => {
  let work: string;
  let oracle: Oracle;
  let server: RepositoryServer;
  let base: string;
  const cli = (...argv: string[]) => floe([...argv, '--repo', 'cf.icechunk'], { cwd: work });
  const json = async (...argv: string[]) => {
    const r = await cli(...argv, '--json');
    expect(r.stderr + r.code).toMatch(/0$/);
    return JSON.parse(r.stdout) as Record<string, unknown>;
  };
  const post = async (query: unknown, params = '') => {
    const res = await fetch(`${base}/main/query?format=json${params}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(query) });
    const body = await res.json() as { arrays: Record<string, unknown>[]; error?: { code: string; message: string } };
    return { status: res.status, body };
  };

  beforeAll(async () => {
    work = tempDir('floe-cf-cli-');
    oracle = JSON.parse(execFileSync(PYTHON, [PEER, work], { encoding: 'utf8', timeout: 120_000, stdio: ['ignore', 'pipe', 'pipe'] })) as Oracle;
    expect((await floe(['init', '--repo', 'cf.icechunk'], { cwd: work })).code).toBe(0);
    const imported = await floe(['import', 'cf.zarr', '--repo', 'cf.icechunk', '--path', '/cf'], { cwd: work });
    expect(imported.stderr + imported.code).toMatch(/0$/);
    server = createRepositoryServer(await Repository.open(Storage.newLocalFilesystem(path.join(work, 'cf.icechunk'))));
    base = await server.listen(0, '127.0.0.1');
  }, 120_000);
  afterAll(async () => {
    await server?.close();
    removeTempDirs();
  });

  it("floe cat shows xarray's decoded values, --raw the stored ones", async () => {
    const t = oracle.variables.temperature!;
    const decoded = await json('cat', 'main:/cf/temperature');
    expect(decoded).toMatchObject({ dtype: 'float32', storedDtype: 'int16', units: 'degC', shape: t.shape });
    expect(decoded.data).toEqual(xarrayValues(t));
    // An int64 variable with nothing to decode reads as stored (bigints as decimal text in JSON).
    expect(await json('cat', 'main:/cf/count')).toMatchObject({ dtype: 'int64', data: oracle.variables.count!.stored.map(String) });
    expect((await cli('cat', 'main:/cf/count')).stdout.trim()).toBe(`[${oracle.variables.count!.stored.map((v) => String(v).padStart(12)).join(' ')}]`);
    const raw = await json('cat', 'main:/cf/temperature', '--raw');
    expect(raw).toMatchObject({ dtype: 'int16', shape: t.shape });
    expect(raw.storedDtype).toBeUndefined();
    expect(raw.data).toEqual(t.stored);
    // Text: NumPy-style floats that read back (as float32) to xarray's values, nan where xarray has NaN.
    const text = (await cli('cat', 'main:/cf/temperature[1, 1]')).stdout.trim();
    const printed = text.slice(1, -1).trim().split(/\s+/).map((v) => (v === 'nan' ? 'NaN' : Math.fround(Number(v))));
    expect(printed).toEqual(xarrayValues(t).slice(20, 25));
  });

  it("floe cat shows times (and their bounds) as xarray's dates on the noleap calendar", async () => {
    for (const name of ['time', 'time_bnds']) {
      const v = oracle.variables[name]!;
      const decoded = await json('cat', `main:/cf/${name}`);
      expect(decoded).toMatchObject({ dtype: 'date', calendar: 'noleap', units: 'days since 2001-01-01', storedDtype: 'float64' });
      expect(decoded.data, name).toEqual(v.dates);
      expect((await json('cat', `main:/cf/${name}`, '--raw')).data, name).toEqual(v.stored);
    }
    expect((await cli('cat', 'main:/cf/time')).stdout.replace(/\s+/g, ' ').trim()).toBe(`[${oracle.variables.time!.dates!.join(' ')}]`);
  });

  it('floe show prints the decoded metadata: type, units, calendar, packing, flags, coordinates, cell methods, grid mapping', async () => {
    const shown = await json('show', 'main:/cf/temperature');
    expect(shown.cf).toMatchObject({
      dtype: 'float32', storedDtype: 'int16', units: 'degC', scaleFactor: 0.01, missingValues: [-32767],
      coordinates: ['lat', 'lon'], gridMapping: [{ name: 'crs', coordinates: [] }],
      cellMethods: [{ names: ['time'], method: 'mean', comment: 'interval: 1 day' }],
    });
    expect((await json('show', 'main:/cf/time')).cf).toMatchObject({ dtype: 'date', units: 'days since 2001-01-01', calendar: 'noleap', bounds: 'time_bnds', reference: '2001-01-01T00:00:00' });
    expect((await json('show', 'main:/cf/quality')).cf).toMatchObject({ flags: { values: [0, 1, 2, 4], meanings: ['good', 'suspect', 'bad', 'missing'] } });
    const text = (await cli('show', 'main:/cf/temperature')).stdout;
    expect(text).toContain('decoded as   float32 (stored int16)');
    expect(text).toContain('cell_methods time: mean (interval: 1 day)');
    expect((await cli('show', 'main:/cf/time')).stdout).toContain('time         days since 2001-01-01, calendar noleap (0 is 2001-01-01T00:00:00)');
    expect((await cli('show', 'main:/cf/quality')).stdout).toContain('flags        0 good, 1 suspect, 2 bad, 4 missing');
  });

  it('floe query decodes, selects on noleap dates and names the decoded dtype; --raw reads stored values', async () => {
    const t = oracle.variables.temperature!;
    const q = '.from("/cf/temperature", "float32").where("time", "between", ["2001-03-01", "2001-03-02T12:00"]).nearest("lat", 20)';
    const result = await json('query', q);
    // time 1..2, lat 1, every lon: xarray's values at [t, 1, :].
    const want = xarrayValues(t);
    expect(result).toMatchObject({ dtype: 'float32', storedDtype: 'int16', shape: [2, 1, 5] });
    expect(result.data).toEqual([...want.slice(20, 25), ...want.slice(35, 40)]);
    // Labels are cut to the precision the selected dates need (minutes here).
    expect((result.labels as Record<string, unknown>).time).toEqual(oracle.variables.time!.dates!.slice(1, 3).map((d) => d!.slice(0, 16)));
    const refused = await cli('query', q.replace('"float32"', '"int16"'));
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain("holds float32 (stored as int16; decode: 'cf' reads float32)");
    const raw = await json('query', q.replace('"float32"', '"int16"'), '--raw');
    expect(raw.data).toEqual([...t.stored.slice(20, 25), ...t.stored.slice(35, 40)]);
    const times = await json('query', '.from("/cf/time")');
    expect(times).toMatchObject({ dtype: 'date', calendar: 'noleap', data: oracle.variables.time!.dates });
  });

  it('floe serve answers decoded values, dates as ISO text with their calendar, stored values on request', async () => {
    const t = oracle.variables.temperature!;
    const decoded = await post({ from: '/cf/temperature' });
    expect(decoded.status).toBe(200);
    expect(decoded.body.arrays[0]).toMatchObject({ dtype: 'float32', storedDtype: 'int16', shape: t.shape, data: xarrayValues(t) });
    expect(decoded.body.arrays[0]!.stored).toBeUndefined();
    const both = await post({ from: '/cf/temperature' }, '&stored=1');
    expect(both.body.arrays[0]).toMatchObject({ dtype: 'float32', data: xarrayValues(t), stored: t.stored });
    const raw = await post({ from: '/cf/temperature' }, '&decode=none');
    expect(raw.body.arrays[0]).toMatchObject({ dtype: 'int16', data: t.stored });
    expect(raw.body.arrays[0]!.storedDtype).toBeUndefined();
    const time = await post({ from: '/cf/time', ops: [{ where: ['time', '>=', '2001-03-01'] }] });
    expect(time.body.arrays[0]).toMatchObject({ dtype: 'float64', storedDtype: 'float64', units: 'days since 2001-01-01', calendar: 'noleap', data: oracle.variables.time!.dates!.slice(1) });
    const flags = await post({ from: '/cf/quality' }, '&stored=1');
    expect(flags.body.arrays[0]).toMatchObject({ dtype: 'uint8', data: xarrayValues(oracle.variables.quality!), flags: { meanings: ['good', 'suspect', 'bad', 'missing'] } });
    // The binary form: decoded float32 bytes, with the stored dtype (and a time's units and calendar) in the header.
    const binary = await fetch(`${base}/main/query?format=binary`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ from: '/cf/temperature', select: ['/cf/time'] }) });
    const { header, body } = decodeBinary(new Uint8Array(await binary.arrayBuffer()));
    expect(header.arrays[0]).toMatchObject({ path: '/cf/temperature', dtype: 'float32', storedDtype: 'int16' });
    const floats = new Float32Array(body.slice(header.arrays[0]!.byteOffset, header.arrays[0]!.byteOffset + header.arrays[0]!.byteLength).buffer);
    expect(Array.from(floats, (v) => (Number.isNaN(v) ? 'NaN' : v))).toEqual(xarrayValues(t));
    expect(header.arrays[1]).toMatchObject({ path: '/cf/time', storedDtype: 'float64', units: 'days since 2001-01-01', calendar: 'noleap' });
    const bad = await post({ from: '/cf/time' }, '&decode=yes');
    expect(bad.status).toBe(400);
    expect(bad.body.error?.message).toContain('decode=cf');
  });
});
