// src/plot runs where the page will run it: bundled by esbuild for the browser platform (which
// refuses Node builtins) and evaluated in a fresh V8 realm that has only the language's globals
// (no Buffer, process, require, module), it draws the same pixels as under Node, byte for byte.
// The import-graph test checks the same rule statically; this one runs the code.
import { createHash } from 'node:crypto';
import path from 'node:path';
import vm from 'node:vm';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { colormapByName } from '../../../src/plot/colormap.ts';
import { renderHeatmap, type HeatmapInput } from '../../../src/plot/heatmap.ts';
import { renderLinePlot, type LinePlotInput } from '../../../src/plot/line-plot.ts';
import { rgbToRgba } from '../../../src/plot/raster.ts';

const PLOT = path.resolve(import.meta.dirname, '../../../src/plot');

// The same inputs are built inside the realm (by the bundled entry below) and here.
const INPUTS = `
  const days = Float64Array.from({ length: 40 }, (_, i) => i * 0.5);
  export const heatmapInput = {
    values: Float64Array.from({ length: 40 * 7 }, (_, i) => (i % 11 === 0 ? NaN : Math.sin(i / 9) * 12)), rows: 40, cols: 7,
    y: { name: 'time', values: days, indices: days.map((_, i) => i), time: { unitMs: 86400000, epochMs: Date.UTC(1990, 1, 27) } },
    x: { name: 'depth', units: 'm', values: Float64Array.of(0, 5, 10, 20, 50, 100, 200), indices: [0, 1, 2, 3, 4, 5, 6] },
    title: ['realm check', 'subtitle'], units: 'degC',
  };
  export const lineInput = { values: Float64Array.from(days, (d) => (d === 7 ? NaN : d * d - 30)), x: heatmapInput.y, yTitle: 'v (m)' };
`;

const ENTRY = `
  import { renderHeatmap } from './heatmap.ts';
  import { renderLinePlot } from './line-plot.ts';
  import { colormapByName } from './colormap.ts';
  import { rgbToRgba } from './raster.ts';
  import { heatmapInput, lineInput } from './inputs.ts';
  const heat = renderHeatmap({ ...heatmapInput, colormap: colormapByName('coolwarm') });
  const line = renderLinePlot(lineInput);
  globalThis.result = { heat: heat.pixels, heatLayout: JSON.stringify(heat.layout), line: rgbToRgba(line.pixels), lineLayout: JSON.stringify(line.layout) };
`;

async function bundle(): Promise<string> {
  const out = await build({
    stdin: { contents: ENTRY, resolveDir: PLOT, sourcefile: 'entry.ts', loader: 'ts' },
    plugins: [{ name: 'inputs', setup: (b) => {
      b.onResolve({ filter: /^\.\/inputs\.ts$/ }, () => ({ path: 'inputs', namespace: 'inputs' }));
      b.onLoad({ filter: /.*/, namespace: 'inputs' }, () => ({ contents: INPUTS, loader: 'ts' }));
    } }],
    bundle: true, platform: 'browser', format: 'iife', write: false, logLevel: 'silent',
  });
  const [file] = out.outputFiles;
  if (!file) throw new Error('esbuild wrote nothing');
  return file.text;
}

const sha256 = (bytes: Uint8Array | Uint8ClampedArray) => createHash('sha256').update(bytes).digest('hex');

describe('src/plot in a browser-like realm', () => {
  it('bundles for the browser and draws, with no Node global in reach, the pixels it draws under Node', async () => {
    const code = await bundle();
    const realm = vm.createContext({});
    expect(vm.runInContext('[typeof Buffer, typeof process, typeof require, typeof module].join()', realm)).toBe('undefined,undefined,undefined,undefined');
    vm.runInContext(code, realm, { timeout: 10_000 });
    const result = vm.runInContext('result', realm) as { heat: Uint8Array; heatLayout: string; line: Uint8ClampedArray; lineLayout: string };

    // The same inputs, built in this realm from the same text.
    const here = vm.runInThisContext(`(() => { ${INPUTS.replaceAll('export const', 'const')}; return { heatmapInput, lineInput }; })()`) as { heatmapInput: HeatmapInput; lineInput: LinePlotInput };
    const heat = renderHeatmap({ ...here.heatmapInput, colormap: colormapByName('coolwarm') });
    const line = renderLinePlot(here.lineInput);
    expect(result.heat.length).toBe(heat.layout.width * heat.layout.height * 3);
    expect(sha256(result.heat)).toBe(sha256(heat.pixels));
    expect(result.heatLayout).toBe(JSON.stringify(heat.layout));
    expect(sha256(result.line)).toBe(sha256(rgbToRgba(line.pixels)));
    expect(result.lineLayout).toBe(JSON.stringify(line.layout));
    expect(heat.layout.noData).toBe(false);
    expect(heat.layout.yAxis.ticks.some((t) => t.label.startsWith('1990-03'))).toBe(true); // dates across the month end
  });
});
