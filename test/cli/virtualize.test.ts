// `floe virtualize`: asks --yes before adding a container, commits, and the read commands read
// the arrays once the user allows the container (--allow-virtual PREFIX, FLOE_ALLOW_VIRTUAL=all);
// a file changed after the import is refused, never read as other values; --concat joins files.
import { execFileSync } from 'node:child_process';
import { mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { encodeHeader, type HeaderModel } from '../support/netcdf3-writer.ts';
import { floe, removeTempDirs, tempDir } from './helpers.ts';

afterAll(removeTempDirs);

/** fixed = [1, 2, 3, 4] (int32), rec = [[10, 11, 12, 13], [20, 21, 22, 23]] (int16, 2 records). */
function netcdf(): Uint8Array {
  const m: HeaderModel = {
    version: 2, numRecords: 2, dimensions: [{ name: 'time', length: 0 }, { name: 'x', length: 4 }], attributes: [{ name: 'title', type: 2, value: 'cli' }],
    variables: [
      { name: 'fixed', dimensionIds: [1], attributes: [], type: 4, vsize: 16, begin: 0 },
      { name: 'rec', dimensionIds: [0, 1], attributes: [{ name: 'units', type: 2, value: 'K' }], type: 3, vsize: 8, begin: 0 },
    ],
  };
  const length = encodeHeader(m).length;
  m.variables[0]!.begin = length;
  m.variables[1]!.begin = length + 16;
  const out = new Uint8Array(length + 32);
  out.set(encodeHeader(m));
  const view = new DataView(out.buffer);
  [1, 2, 3, 4].forEach((v, i) => view.setInt32(length + i * 4, v));
  [10, 11, 12, 13, 20, 21, 22, 23].forEach((v, i) => view.setInt16(length + 16 + i * 2, v));
  return out;
}

describe('floe virtualize', () => {
  it('adds the container only with --yes, commits, and reads back with --allow-virtual', async () => {
    const work = tempDir();
    const data = path.join(work, 'data');
    mkdirSync(data);
    const file = path.join(data, 'obs.nc');
    writeFileSync(file, netcdf());
    const prefix = pathToFileURL(data).href + '/';
    expect((await floe(['init', '--repo', 'r'], { cwd: work })).code).toBe(0);

    const refused = await floe(['virtualize', '--repo', 'r', file, '-m', 'obs'], { cwd: work });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(prefix);
    expect(refused.stderr).toContain('--yes');

    const done = await floe(['virtualize', '--repo', 'r', file, '-m', 'obs', '--yes'], { cwd: work });
    expect(done.code, done.stderr).toBe(0);
    expect(done.stdout).toContain(`added the virtual chunk container ${prefix} to the configuration`);
    expect(done.stdout).toMatch(/virtualized 2 variables from 1 file \(3 virtual chunks\) into main; committed \w+/);
    expect(done.stderr).toContain('virtualizing: 2 items');
    expect(done.stderr).toContain('--allow-virtual');

    const denied = await floe(['cat', '--repo', 'r', 'main:/fixed'], { cwd: work });
    expect(denied.code).toBe(1);
    expect(denied.stderr).toContain(`--allow-virtual ${prefix}`);
    const fixed = await floe(['cat', '--repo', 'r', '--allow-virtual', prefix, 'main:/fixed'], { cwd: work });
    expect(fixed.stdout.trim()).toBe('[1 2 3 4]');
    const rec = await floe(['cat', '--repo', 'r', 'main:/rec'], { cwd: work, env: { FLOE_ALLOW_VIRTUAL: 'all' } });
    expect(rec.stdout.replace(/\s+/g, ' ').trim()).toBe('[[10 11 12 13] [20 21 22 23]]');

    // --json: the API's result, with the commit.
    const json = await floe(['virtualize', '--repo', 'r', file, '--path', '/again', '--json'], { cwd: work });
    const parsed = JSON.parse(json.stdout) as { snapshotId: string; imported: { path: string; virtualChunks: number }[]; skipped: unknown[] };
    expect(parsed.imported.map((i) => [i.path, i.virtualChunks])).toEqual([['/again/fixed', 1], ['/again/rec', 2]]);
    expect(parsed.skipped).toEqual([]);
    expect(parsed.snapshotId).toMatch(/^[0-9A-Z]{20}$/);

    // Rewritten a minute after the import: refused, not read as the new values.
    const later = new Date(Date.now() + 60_000);
    utimesSync(file, later, later);
    const stale = await floe(['cat', '--repo', 'r', '--allow-virtual', 'all', 'main:/rec'], { cwd: work });
    expect(stale.code).toBe(1);
    expect(stale.stderr).toContain('changed since the virtual chunk was recorded');
  });

  it('imports h5py\'s LZF-compressed variables only with --allow-floe-only-codecs, and reads them as h5py wrote them', async () => {
    const work = tempDir();
    const data = path.join(work, 'data');
    mkdirSync(data);
    const file = path.join(data, 'lzf.h5');
    execFileSync('/usr/bin/python3', ['-c', `
import sys, h5py, numpy as np
with h5py.File(sys.argv[1], 'w') as f:
    f.create_dataset('v', data=np.arange(40, dtype='<i4') // 7, chunks=(20,), compression='lzf')
    f.create_dataset('plain', data=np.arange(3, dtype='<i2'))`, file]);
    expect((await floe(['init', '--repo', 'r'], { cwd: work })).code).toBe(0);
    const without = await floe(['virtualize', '--repo', 'r', file, '-m', 'lzf', '--yes'], { cwd: work });
    expect(without.code, without.stderr).toBe(0);
    expect(without.stdout).toContain('floe.lzf');
    expect(without.stdout).toContain('--allow-floe-only-codecs');
    const imported = await floe(['virtualize', '--repo', 'r', file, '--path', '/with', '-m', 'lzf', '--allow-floe-only-codecs', '--json'], { cwd: work });
    expect(imported.code, imported.stderr).toBe(0);
    const parsed = JSON.parse(imported.stdout) as { imported: { path: string; virtualChunks: number }[]; skipped: unknown[] };
    expect(parsed.imported.map((i) => [i.path, i.virtualChunks])).toEqual([['/with/plain', 1], ['/with/v', 2]]);
    expect(parsed.skipped).toEqual([]);
    const v = await floe(['cat', '--repo', 'r', '--allow-virtual', 'all', 'main:/with/v'], { cwd: work });
    expect(v.stdout.replace(/\s+/g, ' ').trim()).toBe(`[${Array.from({ length: 40 }, (_, i) => Math.floor(i / 7)).join(' ')}]`);
  });

  it('joins files along a dimension with --concat, and refuses a run without files', async () => {
    const work = tempDir();
    const data = path.join(work, 'data');
    mkdirSync(data);
    for (const name of ['a.nc', 'b.nc']) writeFileSync(path.join(data, name), netcdf());
    expect((await floe(['init', '--repo', 'r'], { cwd: work })).code).toBe(0);
    const done = await floe(['virtualize', '--repo', 'r', 'data/a.nc', 'data/b.nc', '--concat', 'time', '--path', '/cube', '--yes'], { cwd: work });
    expect(done.code, done.stderr).toBe(0);
    expect(done.stdout).toMatch(/virtualized 2 variables from 2 files \(5 virtual chunks\) into main/);
    const rec = await floe(['cat', '--repo', 'r', 'main:/cube/rec'], { cwd: work, env: { FLOE_ALLOW_VIRTUAL: 'all' } });
    expect(rec.stdout.replace(/\s+/g, ' ').trim()).toBe('[[10 11 12 13] [20 21 22 23] [10 11 12 13] [20 21 22 23]]');
    const usage = await floe(['virtualize', '--repo', 'r', 'data/a.nc', '--new-dim'], { cwd: work });
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('--new-dim goes with --concat DIM');
    expect((await floe(['virtualize', '--repo', 'r'], { cwd: work })).code).toBe(2);
  });
});
