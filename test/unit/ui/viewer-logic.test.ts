// The viewer page's pure parts (src/ui): the address fragment <-> view, zoom and pan as new
// selections, the first selection of an array, and the downloads — CSV read back by Python's csv
// module and .npy by numpy.load (other implementations, at test time), selection text both ways.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { normalizeSelection, slice } from '../../../src/engine/selection.ts';
import { parseSelectionText, selectionText } from '../../../src/engine/selection-text.ts';
import { csvField, npyBytes, selectionCsv } from '../../../src/ui/export.ts';
import { defaultSelection, moveWindow } from '../../../src/ui/slice-window.ts';
import { parseViewHash, viewHash, type ViewState } from '../../../src/ui/view-state.ts';
import { PYTHON } from '../../support/python-zarr.ts';

describe('the view in the address fragment', () => {
  it('reads back what it writes, for any ref, path, selection and colour map text', () => {
    const text = fc.string({ minLength: 1, maxLength: 40, unit: 'grapheme' }).filter((s) => s.trim() === s);
    fc.assert(fc.property(text, text, text, text, (ref, p, sel, cmap) => {
      const state: ViewState = { view: 'slice', ref, path: p, sel, cmap };
      expect(parseViewHash(viewHash(state))).toEqual({ state, token: undefined });
    }), { numRuns: 200 });
  });

  it('takes the token once and never writes it back; unknown views and oversized fields fall back', () => {
    const { state, token } = parseViewHash('#token=s3%2Fcret&view=tree&ref=v1.0&path=%2Fclimate');
    expect(token).toBe('s3/cret');
    expect(state).toEqual({ view: 'tree', ref: 'v1.0', path: '/climate', sel: undefined, cmap: undefined });
    expect(viewHash(state)).toBe('#view=tree&ref=v1.0&path=%2Fclimate');
    expect(parseViewHash('#view=<script>&ref=' + 'x'.repeat(5000)).state).toEqual({ view: 'refs', ref: 'main', path: undefined, sel: undefined, cmap: undefined });
    expect(viewHash({ view: 'slice', ref: 'main', path: '/t', sel: '[0, :, :]' })).toBe('#view=slice&ref=main&path=%2Ft&sel=%5B0%2C%20%3A%2C%20%3A%5D');
  });
});

describe('selection text', () => {
  it('round-trips NumPy basic indexing and names a bad item', () => {
    for (const text of ['[182]', '[:, 90, ::2]', '[0, 3:10, -5:]', '[..., 1]']) expect(selectionText(parseSelectionText(text.slice(1, -1)))).toBe(text);
    expect(() => parseSelectionText('1.5')).toThrow(/bad index "1.5"/);
    expect(() => parseSelectionText('1:2:3:4')).toThrow(expect.objectContaining({ code: 'INVALID_SELECTION' }));
  });
});

describe('zoom and pan', () => {
  const shape = [365, 36, 72];
  const box = (sel: ReturnType<typeof moveWindow>) => normalizeSelection(sel, shape).map((d) => [d.start, d.count, d.step, d.drop]);

  it('zooms about the centre of the plotted dimensions and keeps integer indices', () => {
    const start = [182, null, null];
    expect(box(moveWindow(start, shape, 'zoom-in'))).toEqual([[182, 1, 1, true], [9, 18, 1, false], [18, 36, 1, false]]);
    expect(box(moveWindow(moveWindow(start, shape, 'zoom-in'), shape, 'zoom-out'))).toEqual(box(start));
    expect(box(moveWindow(start, shape, 'zoom-out'))).toEqual(box(start)); // already whole: nothing to show beyond
  });

  it('pans a quarter of the window, never past the edges, and keeps the step', () => {
    const zoomed = [182, slice(10, 20), slice(0, 40, 2)];
    expect(box(moveWindow(zoomed, shape, 'right'))).toEqual([[182, 1, 1, true], [10, 10, 1, false], [10, 20, 2, false]]); // 40 wide: 10 along
    expect(box(moveWindow(zoomed, shape, 'left'))).toEqual(box(zoomed));
    expect(box(moveWindow(zoomed, shape, 'down'))).toEqual([[182, 1, 1, true], [13, 10, 1, false], [0, 20, 2, false]]);
    expect(box(moveWindow(zoomed, shape, 'up'))).toEqual([[182, 1, 1, true], [7, 10, 1, false], [0, 20, 2, false]]);
    expect(normalizeSelection(moveWindow([null], [100], 'zoom-in'), [100])).toEqual([{ start: 25, count: 50, step: 1, drop: false }]); // a line zooms along x
  });

  it('opens an array on its first plane, strided to at most 512 values a side', () => {
    expect(selectionText(defaultSelection([365, 36, 72]))).toBe('[0, :, :]');
    expect(selectionText(defaultSelection([2000, 100]))).toBe('[::4, :]');
    expect(selectionText(defaultSelection([10]))).toBe('[:]');
  });
});

describe('downloads', () => {
  it('quotes CSV fields that need it and defuses formulas, leaving numbers alone', () => {
    expect(csvField('plain')).toBe('plain');
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('=HYPERLINK("x")')).toBe(`"'=HYPERLINK(""x"")"`);
    expect(csvField('-12.5')).toBe('-12.5');
    expect(csvField('-Infinity')).toBe('-Infinity');
  });

  it('writes CSV that Python\'s csv module and .npy that numpy.load read back as the values', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'floe-ui-'));
    try {
      const values = new Float32Array([1.5, NaN, -3, 4e10, 0.25, 6]);
      const dims = [{ name: 'lat, north', labels: ['10', '20'] }, { name: 'time', labels: ['2024-01-01', '2024-01-02', '<img src=x onerror=alert(1)>'] }];
      writeFileSync(path.join(dir, 'a.csv'), selectionCsv('t"emp', dims, values));
      writeFileSync(path.join(dir, 'a.npy'), npyBytes(values, [2, 3])!);
      writeFileSync(path.join(dir, 'b.npy'), npyBytes(new BigInt64Array([-(2n ** 63n), 5n]), [2])!);
      writeFileSync(path.join(dir, 'c.npy'), npyBytes(new Uint8Array([7]), [1, 1])!);
      const script = [
        'import csv, json, sys, numpy as np',
        'd = sys.argv[1]',
        'rows = list(csv.reader(open(d + "/a.csv", newline="")))',
        'a = np.load(d + "/a.npy"); b = np.load(d + "/b.npy"); c = np.load(d + "/c.npy")',
        'print(json.dumps({"rows": rows, "a": [str(a.dtype), list(a.shape), [None if x != x else float(x) for x in a.ravel()]], "b": [str(b.dtype), [int(x) for x in b]], "c": [str(c.dtype), list(c.shape)]}))',
      ].join('\n');
      const out = JSON.parse(execFileSync(PYTHON, ['-c', script, dir], { encoding: 'utf8' })) as Record<string, unknown>;
      expect(out.rows).toEqual([
        ['lat, north', 'time', 't"emp'],
        ['10', '2024-01-01', '1.5'], ['10', '2024-01-02', ''], ['10', '<img src=x onerror=alert(1)>', '-3'],
        ['20', '2024-01-01', '40000000000'], ['20', '2024-01-02', '0.25'], ['20', '<img src=x onerror=alert(1)>', '6'],
      ]);
      expect(out.a).toEqual(['float32', [2, 3], [1.5, null, -3, 4e10, 0.25, 6]]);
      expect(out.b).toEqual(['int64', [-(2 ** 63), 5]]);
      expect(out.c).toEqual(['uint8', [1, 1]]);
      expect(npyBytes([1, 2], [2])).toBeUndefined();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('a query in the slice viewer', () => {
  it('becomes the selection its plan makes: one index an integer, one run a slice; split runs are refused', async () => {
    const { Repository, Storage, ZarrArray, ZarrGroup } = await import('../../../src/index.ts');
    const { query } = await import('../../../src/query/builder.ts');
    const { applyJsonQuery } = await import('../../../src/query/json-query.ts');
    const { parseQueryText } = await import('../../../src/query/query-text.ts');
    const { isQueryText, queryWindow } = await import('../../../src/ui/query-window.ts');
    const repo = await Repository.create(Storage.newInMemory());
    const session = await repo.writableSession('main');
    await ZarrGroup.create(session.store, '/');
    const coord = async (name: string, values: number[]) => {
      const a = await ZarrArray.create(session.store, `/${name}`, { shape: [values.length], chunkShape: [values.length], dataType: 'float64', dimensionNames: [name] });
      await a.set(undefined, Float64Array.from(values));
    };
    await coord('time', [0, 1, 2, 3]);
    await coord('lat', [-50, -30, -10, 10, 30, 50]);
    await coord('lon', [0, 45, 90, 135, 180, 225, 270, 315]);
    await ZarrArray.create(session.store, '/t', { shape: [4, 6, 8], chunkShape: [2, 3, 4], dataType: 'float32', dimensionNames: ['time', 'lat', 'lon'] });
    const windowOf = async (text: string) => queryWindow((await applyJsonQuery(query(session), parseQueryText(text)).explain()).plan);
    expect(isQueryText('.from("/t")') && isQueryText(' {"from": "/t"}') && !isQueryText('[0, :, :]')).toBe(true);
    const shown = await windowOf('.from("/t").where("time", "=", 2).where("lat", "between", [-10, 30]).whereIndex("lon", 1, 8, 2)');
    expect('selection' in shown && [shown.path, selectionText(shown.selection)]).toEqual(['/t', '[2, 2:5, 1:9:2]']);
    const evenly = await windowOf('.from("/t").where("lat", "in", [-50, 50])'); // indices 0 and 5: one run, step 5
    expect('selection' in evenly && selectionText(evenly.selection)).toBe('[:, 0:10:5, :]');
    const split = await windowOf('.from("/t").where("lat", "in", [-50, -30, 50]).where("time", "=", 1)'); // indices 0, 1 and 5: two runs
    expect('refused' in split && split.refused).toBe('the query selects 2 separate runs of lat (indices 0:2, 5); the viewer draws one range per dimension: show the range that covers them, /t[1, 0:6, :], or narrow the query with between or whereIndex');
    expect('cover' in split && split.cover && [split.cover.path, selectionText(split.cover.selection)]).toEqual(['/t', '[1, 0:6, :]']);
    const twice = await windowOf('.from("/t").whereIndex("time", 0, 4, 3).where("lon", "in", [0, 90, 135, 315])'); // time 0 and 3 (one run, step 3); lon 0, 2, 3, 7: runs as the planner makes them
    expect('refused' in twice && twice.refused).toContain('2 separate runs of lon (indices 0:3:2, 3:8:4)');
    expect('cover' in twice && twice.cover && selectionText(twice.cover.selection)).toBe('[0:6:3, :, 0:8]');
    expect(() => parseQueryText('.from("/t").nope(1)')).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
  });
});
