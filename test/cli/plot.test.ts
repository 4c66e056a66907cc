// `floe plot`: the PNG decodes to the laid-out size; field pixels, the colour bar's ends and
// missing values have the expected colours.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { decode } from 'fast-png';
import { afterAll, describe, expect, it } from 'vitest';
import { layoutFor, barLabel, renderHeatmap } from '../../src/cli/plot/heatmap.ts';
import { MISSING, viridis } from '../../src/cli/plot/colormap.ts';
import { fieldValue, floe, NX, NY, removeTempDirs, sampleRepository, tempDir } from './helpers.ts';

afterAll(removeTempDirs);

describe('floe plot', () => {
  it('writes a PNG heat map of a 2-D slice with a colour bar', async () => {
    const dir = tempDir();
    const { repoPath } = await sampleRepository(dir);
    const out = path.join(dir, 'day1.png');
    const r = await floe(['plot', 'v1:/weather/temperature[1]', '-o', out, '--repo', repoPath, '--json'], { cwd: dir });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout) as { width: number; height: number; min: number; max: number };
    const png = decode(readFileSync(out));
    const [min, max] = [fieldValue(1, 0, 0), fieldValue(1, NY - 1, NX - 1)];
    const layout = layoutFor(NY, NX, Math.max(...[max, (min + max) / 2, min].map((v) => barLabel(Math.fround(v)).length)));
    expect([png.width, png.height]).toEqual([layout.width, layout.height]);
    expect([report.width, report.height]).toEqual([layout.width, layout.height]);
    const pixel = (x: number, y: number) => Array.from(png.data.subarray((y * png.width + x) * png.channels, (y * png.width + x) * png.channels + 3));
    // Top-left cell is the minimum, bottom-right the maximum.
    expect(pixel(layout.field.x + 1, layout.field.y + 1)).toEqual([...viridis(0)]);
    expect(pixel(layout.field.x + layout.field.width - 2, layout.field.y + layout.field.height - 2)).toEqual([...viridis(1)]);
    expect(pixel(layout.bar.x + 2, layout.bar.y)).toEqual([...viridis(1)]);
    expect(pixel(layout.bar.x + 2, layout.bar.y + layout.bar.height - 1)).toEqual([...viridis(0)]);
    expect(pixel(0, 0)).toEqual([255, 255, 255]);
  });

  it('refuses selections that are not 2-D, with a hint', async () => {
    const dir = tempDir();
    const { repoPath } = await sampleRepository(dir);
    const r = await floe(['plot', 'main:/weather/temperature', '--repo', repoPath], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('plot needs 2');
  });

  it('draws NaN in grey and clamps to --vmin/--vmax', () => {
    const map = renderHeatmap(Float32Array.from([NaN, 0, 5, 10]), 2, 2, { min: 0, max: 5 });
    const { field, width } = map.layout;
    const at = (x: number, y: number) => Array.from(map.pixels.subarray((y * width + x) * 3, (y * width + x) * 3 + 3));
    expect(at(field.x, field.y)).toEqual([...MISSING]);
    expect(at(field.x + field.width - 1, field.y)).toEqual([...viridis(0)]);
    expect(at(field.x + field.width - 1, field.y + field.height - 1)).toEqual([...viridis(1)]);
  });
});
