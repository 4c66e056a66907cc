// Issue 33: `floe plot` of CF variables. Time axes on every CF calendar are labelled with dates of
// that calendar: each tick's label, converted to a stored number by cftime (Python, independent of
// Floe), must be the tick's value, and the tick must sit where that value lies in the field.
// Packed values are drawn decoded (the colour range is the physical one, the colour bar is titled
// with the units) and a fill value is drawn as no data; --raw draws the stored numbers.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { decode } from 'fast-png';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ZarrArray } from '../../src/engine/array.ts';
import { ZarrGroup } from '../../src/engine/group.ts';
import { Repository, Storage } from '../../src/txn/index.ts';
import { describeWithPythonZarr, PYTHON } from '../support/python-zarr.ts';
import { floe, removeTempDirs, tempDir } from './helpers.ts';

// The no-data hatching's two greys (as test/cli/plot.test.ts).
const NO_DATA = [[205, 205, 205], [160, 160, 160]];
const COLS = 2;
const FILL = -999;

/** Calendar, units, number of daily (or hourly) steps: one group each, time[n] x x[2]. */
const CASES = [
  { group: 'noleap', calendar: 'noleap', units: 'days since 2001-01-01', n: 365 },
  { group: 'd360', calendar: '360_day', units: 'days since 2001-01-01', n: 360 },
  { group: 'allleap', calendar: 'all_leap', units: 'hours since 2001-02-28', n: 48 },
  { group: 'julian', calendar: 'julian', units: 'days since 1500-01-01', n: 366 },
  { group: 'switch', calendar: 'standard', units: 'days since 1582-10-01', n: 31 },
  { group: 'old', calendar: 'standard', units: 'days since 1000-01-01', n: 3000 },
] as const;

interface Tick { label: string; value: number; position: number }
interface Report { min: number; max: number; area: { x: number; y: number; width: number; height: number }; xAxis: { title: string; ticks: Tick[] }; yAxis: { title: string; ticks: Tick[] }; colourbarTitle: string | null }

/** cftime's stored number for each tick label (`2001`, `2001-03`, `2001-03-01`, `2001-03-01T06:00`) of a calendar and units. */
function cftimeNumbers(requests: { calendar: string; units: string; labels: string[] }[]): number[][] {
  const script = [
    'import json, sys, cftime',
    'out = []',
    'for r in json.load(sys.stdin):',
    '    row = []',
    '    for label in r["labels"]:',
    '        date, _, clock = label.partition("T")',
    '        sign = -1 if date.startswith("-") else 1',
    '        parts = [int(p) for p in date.lstrip("-+").split("-")] + [1, 1]',
    '        hm = [int(p) for p in clock.split(":")] if clock else [0, 0]',
    '        d = cftime.datetime(sign * parts[0], parts[1], parts[2], hm[0], hm[1], calendar=r["calendar"])',
    '        row.append(float(cftime.date2num(d, r["units"], calendar=r["calendar"])))',
    '    out.append(row)',
    'print(json.dumps(out))',
  ].join('\n');
  return JSON.parse(execFileSync(PYTHON, ['-c', script], { input: JSON.stringify(requests), encoding: 'utf8', timeout: 60_000 })) as number[][];
}

describeWithPythonZarr('floe plot of CF variables', () => {
  let dir: string;
  let repoPath: string;
  const plot = async (target: string, ...options: string[]) => {
    const r = await floe(['plot', target, '-o', 'out.png', '--repo', repoPath, '--json', ...options], { cwd: dir });
    expect(r.stderr + r.code).toMatch(/0$/);
    return { report: JSON.parse(r.stdout) as Report, png: decode(readFileSync(path.join(dir, 'out.png'))) };
  };

  beforeAll(async () => {
    dir = tempDir('floe-cf-plot-');
    repoPath = path.join(dir, 'cf.icechunk');
    const repo = await Repository.create(Storage.newLocalFilesystem(repoPath));
    const session = await repo.writableSession('main');
    await ZarrGroup.create(session.store, '/', {});
    for (const c of CASES) {
      await ZarrGroup.create(session.store, `/${c.group}`, {});
      const time = await ZarrArray.create(session.store, `/${c.group}/time`, { shape: [c.n], chunkShape: [c.n], dataType: 'float64', dimensionNames: ['time'], attributes: { units: c.units, calendar: c.calendar } });
      await time.set(undefined, Float64Array.from({ length: c.n }, (_, i) => i));
      // Stored 20..40 with scale_factor 0.5: decoded 10..20 degC exactly; one fill value.
      const stored = Int16Array.from({ length: c.n * COLS }, (_, i) => 20 + (i % 21));
      stored[3 * COLS + 1] = FILL;
      const temp = await ZarrArray.create(session.store, `/${c.group}/temp`, {
        shape: [c.n, COLS], chunkShape: [c.n, COLS], dataType: 'int16', dimensionNames: ['time', 'x'],
        attributes: { units: 'degC', scale_factor: 0.5, _FillValue: FILL },
      });
      await temp.set(undefined, stored);
    }
    await session.commit('CF plot fixtures');
  });
  afterAll(removeTempDirs);

  it('labels time axes with dates of each CF calendar, each tick at the number cftime gives its date', async () => {
    const reports: Report[] = [];
    for (const c of CASES) reports.push((await plot(`main:/${c.group}/temp`)).report);
    const numbers = cftimeNumbers(CASES.map((c, k) => ({ calendar: c.calendar, units: c.units, labels: reports[k]!.yAxis.ticks.map((t) => t.label) })));
    CASES.forEach((c, k) => {
      const { yAxis, area } = reports[k]!;
      expect(yAxis.title, c.group).toBe(`time (${c.calendar})`);
      expect(yAxis.ticks.length, c.group).toBeGreaterThanOrEqual(3);
      yAxis.ticks.forEach((t, i) => {
        expect(t.value, `${c.group} ${t.label}`).toBe(numbers[k]![i]);
        // Row r holds time value r: a value v lies v + 0.5 rows down the field.
        expect(t.position, `${c.group} ${t.label}`).toBeCloseTo(area.y + ((t.value + 0.5) * area.height) / c.n, 6);
      });
    });
    // Known dates by hand: 1 March is day 59 on noleap, day 60 on 360_day and in Julian 1500 (a leap year there).
    const at = (k: number, label: string) => reports[k]!.yAxis.ticks.find((t) => t.label === label)?.value;
    expect(at(0, '2001-03')).toBe(59);
    expect(at(1, '2001-03')).toBe(60);
    expect(at(3, '1500-03')).toBe(60);
    // standard: 1582-10-04 is followed by 1582-10-15 (day 4); every label is a date of that calendar.
    expect(reports[4]!.yAxis.ticks.every((t) => !/^1582-10-(0[5-9]|1[0-4])$/.test(t.label))).toBe(true);
  });

  it('draws packed values decoded, the fill value as no data, the colour bar titled with the units; --raw draws stored numbers', async () => {
    const { report, png } = await plot('main:/switch/temp');
    expect([report.min, report.max]).toEqual([10, 20]);
    expect(report.colourbarTitle).toBe('degC');
    const { area } = report;
    const pixel = (r: number, c: number) => {
      const [x, y] = [Math.round(area.x + ((c + 0.5) * area.width) / COLS), Math.round(area.y + ((r + 0.5) * area.height) / 31)];
      const i = (y * png.width + x) * png.channels;
      return Array.from((png.data as Uint8Array).subarray(i, i + 3));
    };
    expect(NO_DATA).toContainEqual(pixel(3, 1));
    expect(NO_DATA).not.toContainEqual(pixel(3, 0));
    const raw = await plot('main:/switch/temp', '--raw');
    expect([raw.report.min, raw.report.max]).toEqual([FILL, 40]);
    expect(raw.report.colourbarTitle).toBe('degC');
  });
});
