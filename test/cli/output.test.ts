// Issue 20, output worth reading: `floe query` prints each array it read with the labels of its
// rows and columns (coordinate values; dates for CF time) in text, --json and --csv; `show` gives
// the chunk grid and sizes stored and decoded; `diff` gives per array the chunks changed and their
// region; `explain` leads with the estimate. Expected text is written out here from the sample
// repository's definition (test/cli/helpers.ts), not produced by the code under test.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatLabelled } from '../../src/cli/labelled-table.ts';
import { parseDataType } from '../../src/format/zarr/data-types.ts';
import { floe, removeTempDirs, sampleRepository, tempDir } from './helpers.ts';

afterAll(removeTempDirs);

let dir: string;
let repoPath: string;
const cli = (...argv: string[]) => floe([...argv, '--repo', repoPath], { cwd: dir });

beforeAll(async () => {
  dir = tempDir();
  ({ repoPath } = await sampleRepository(dir));
});

// time: days since 2020-01-01, 0..5; lat: -45 + 10 i; lon: 18 i; temperature = 270 + t + y/10 + x/100 (float32, K).
const BOX = '.from("/weather/temperature").where("time", "between", [2020-01-02, 2020-01-03]).where("lat", "between", [-45, -35]).whereIndex("lon", 0, 3)';
const POINT = '.from("/weather/temperature").nearest("lat", -44).nearest("lon", 17).whereIndex("time", 0, 3)';

describe('floe query output', () => {
  it('prints a table per leading label, rows and columns labelled with coordinate values', async () => {
    const r = await cli('query', BOX, '--ref', 'v1');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe([
      '/weather/temperature float32 [2, 2, 3] (time, lat, lon), units K',
      '[time = 2020-01-02]',
      'lat \\ lon       0      18      36',
      '-45        271.00  271.01  271.02',
      '-35        271.10  271.11  271.12',
      '',
      '[time = 2020-01-03]',
      'lat \\ lon       0      18      36',
      '-45        272.00  272.01  272.02',
      '-35        272.10  272.11  272.12',
      '',
    ].join('\n'));
  });

  it('states single labels once and prints one dimension as a labelled column, for every selected array', async () => {
    const r = await cli('query', `${POINT}.select("lat")`, '--ref', 'v1');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe([
      '/weather/temperature float32 [3, 1, 1] (time, lat, lon), units K',
      'lat = -45',
      'lon = 18',
      'time        temperature',
      '2020-01-01       270.01',
      '2020-01-02       271.01',
      '2020-01-03       272.01',
      '',
      '/weather/lat float64 [1] (lat)',
      'lat = -45',
      '-45.',
      '',
    ].join('\n'));
  });

  it('--json carries the labels, the coordinates they come from and every array', async () => {
    const r = await cli('query', `${POINT}.select("lat")`, '--ref', 'v1', '--json');
    expect(r.code, r.stderr).toBe(0);
    const json = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(json).toMatchObject({
      path: '/weather/temperature', shape: [3, 1, 1], units: 'K', data: [270.01, 271.01, 272.01].map(Math.fround),
      labels: { time: ['2020-01-01', '2020-01-02', '2020-01-03'], lat: [-45], lon: [18] },
      coordinates: {
        time: { path: '/weather/time', units: 'days since 2020-01-01', indices: [0, 1, 2] },
        lat: { path: '/weather/lat', units: null, indices: [0] },
        lon: { path: '/weather/lon', units: null, indices: [1] },
      },
    });
    expect(json.arrays).toEqual([
      { path: '/weather/temperature', dtype: 'float32', dims: ['time', 'lat', 'lon'], shape: [3, 1, 1], units: 'K', data: [270.01, 271.01, 272.01].map(Math.fround) },
      { path: '/weather/lat', dtype: 'float64', dims: ['lat'], shape: [1], data: [-45] },
    ]);
  });

  it('--csv has a row per element with each label and each array (a clashing name as its path)', async () => {
    const r = await cli('query', `${POINT}.select("lat")`, '--ref', 'v1', '--csv');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe([
      'time,lat,lon,temperature,/weather/lat',
      '2020-01-01,-45,18,270.01,-45',
      '2020-01-02,-45,18,271.01,-45',
      '2020-01-03,-45,18,272.01,-45',
      '',
    ].join('\n'));
    const box = await cli('query', BOX, '--ref', 'v1', '--csv');
    const lines = box.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(1 + 12);
    expect(lines[1]).toBe('2020-01-02,-45,0,271');
    expect(lines[12]).toBe('2020-01-03,-35,36,272.12');
    expect((await cli('query', BOX, '--json', '--csv')).code).toBe(2);
  });
});

describe('labelled tables', () => {
  const f64 = parseDataType('float64');
  it('labels by position without a coordinate and elides the middle of large results', () => {
    const data = Int32Array.from({ length: 40 * 40 }, (_, i) => i);
    const text = formatLabelled(data, [40, 40], parseDataType('int32'), [{ name: 'y', labels: [] }, { name: 'x', labels: [] }], { lineWidth: 200 });
    expect(text.split('\n')).toEqual([
      'y \\ x     0     1     2  ...    37    38    39',
      '0         0     1     2  ...    37    38    39',
      '1        40    41    42  ...    77    78    79',
      '2        80    81    82  ...   117   118   119',
      '...     ...   ...   ...  ...   ...   ...   ...',
      '37     1480  1481  1482  ...  1517  1518  1519',
      '38     1520  1521  1522  ...  1557  1558  1559',
      '39     1560  1561  1562  ...  1597  1598  1599',
    ]);
  });

  it('keeps columns from both ends that fit the line width, with ... between', () => {
    const data = Float64Array.from({ length: 2 * 30 }, (_, i) => i);
    const labels = Array.from({ length: 30 }, (_, i) => `c${i}`);
    const text = formatLabelled(data, [2, 30], f64, [{ name: 'r', labels: ['a', 'b'] }, { name: 'c', labels }], { lineWidth: 40 });
    const [head = '', first = ''] = text.split('\n');
    expect(head.length).toBeLessThanOrEqual(40);
    expect(head).toMatch(/^r \\ c +c0 .* \.\.\. .* c29$/);
    expect(first).toMatch(/^a {7}0\. .* \.\.\. .*29\.$/);
  });
});

describe('show, diff and explain', () => {
  it('show gives the chunk grid, what is stored of it and the sizes stored and decoded', async () => {
    const r = await cli('show', 'v1:/weather/temperature');
    expect(r.code, r.stderr).toBe(0);
    // [6, 10, 20] in shards [2, 10, 10] of inner chunks [1, 5, 5]: 3 x 1 x 2 shards of 8 inner chunks;
    // 1,200 float32 values are 4,800 B, and every shard is stored (6 x 800 B decoded).
    expect(r.stdout).toContain('\n  grid        6 shards [3 x 1 x 2], 8 inner chunks each\n');
    expect(r.stdout).toMatch(/\n {2}stored {6}6 of 6 shards: [\d.]+ (B|KiB), 4\.7 KiB decoded \(compression [\d.]+\)\n/);
    expect(r.stdout).toContain('\n  array       4.7 KiB decoded, 1,200 values\n');
    const json = JSON.parse((await cli('show', 'v1:/weather/temperature', '--json')).stdout) as Record<string, unknown>;
    expect(json).toMatchObject({ gridChunks: 6, gridShape: [3, 1, 2], innerChunksPerShard: 8, chunksStored: 6, decodedBytes: 4800, storedDecodedBytes: 4800 });
  });

  it('diff says per array how many chunks changed of its grid and the region, with labels', async () => {
    const r = await cli('diff', 'v1', 'main');
    expect(r.code, r.stderr).toBe(0);
    // main zeroed [0, 0:5, 0:5]: shard [0, 0, 0], which covers time 0:2, lat 0:10, lon 0:10.
    expect(r.stdout).toBe([
      '~ chunks   /weather/temperature: 1 of 6 chunks changed [0,0,0]',
      '           region [0:2, 0:10, 0:10]: time 2020-01-01 .. 2020-01-02, lat -45 .. 45, lon 0 .. 162',
      '',
    ].join('\n'));
    const json = JSON.parse((await cli('diff', 'v1', 'main', '--json')).stdout) as { chunkChanges: Record<string, unknown> };
    expect(json.chunkChanges['/weather/temperature']).toEqual({
      changed: 1, gridChunks: 6, region: [[0, 2], [0, 10], [0, 10]], dims: ['time', 'lat', 'lon'],
      labels: { time: ['2020-01-01', '2020-01-02'], lat: ['-45', '45'], lon: ['0', '162'] },
    });
  });

  it('explain leads with the estimated requests and bytes, matching the plan', async () => {
    const r = await cli('explain', BOX, '--ref', 'v1');
    expect(r.code, r.stderr).toBe(0);
    const [first = ''] = r.stdout.split('\n');
    // 2 x 2 x 3 float32 = 48 B in memory.
    expect(first).toMatch(/^estimate: \d+ requests?, [\d.]+ (B|KiB) of data to fetch; result \[2 x 2 x 3\] float32, 48 B in memory; planning read \d+ requests?, [\d.]+ (B|KiB)$/);
    const json = JSON.parse((await cli('explain', BOX, '--ref', 'v1', '--json')).stdout) as { estimate: Record<string, number>; plan: { expected: { requests: number; bytes: number } } };
    expect(json.estimate).toMatchObject({ requests: json.plan.expected.requests, bytes: json.plan.expected.bytes, resultBytes: 48 });
    expect(json.estimate.requests).toBeGreaterThan(0);
    expect(first).toContain(`estimate: ${json.estimate.requests} request`);
  });
});
