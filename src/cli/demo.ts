// `floe demo`: a short tour on the embedded default (a local directory), printing each step.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { createGroup, openStore } from '../engine/api.ts';
import { ZarrArray } from '../engine/array.ts';
import { slice } from '../engine/selection.ts';

export async function runDemo(args: string[]): Promise<void> {
  const dirFlag = args.indexOf('--dir');
  const dir = path.resolve(dirFlag >= 0 ? args[dirFlag + 1]! : 'floe-demo.zarr');
  mkdirSync(dir, { recursive: true });
  const step = stepper();

  const store = openStore(dir);
  const root = await createGroup(store, '/', { attributes: { title: 'Floe demo' }, overwrite: true });
  step(`created a Zarr v3 store at ${dir}`);

  const [ny, nx] = [1024, 2048];
  const temperature = await root.createArray('temperature', {
    shape: [ny, nx],
    chunkShape: [256, 512],
    dataType: 'float32',
    fillValue: 'NaN',
    dimensionNames: ['lat', 'lon'],
    attributes: { units: 'K' },
    codecs: [
      {
        name: 'sharding_indexed',
        configuration: {
          chunk_shape: [64, 128],
          codecs: [{ name: 'bytes', configuration: { endian: 'little' } }, { name: 'zstd', configuration: { level: 3, checksum: false } }],
          index_codecs: [{ name: 'bytes', configuration: { endian: 'little' } }, { name: 'crc32c' }],
        },
      },
    ],
  });
  step('created /temperature: float32 [1024, 2048], shards [256, 512] of inner chunks [64, 128], zstd');

  const field = new Float32Array(ny * nx);
  for (let y = 0; y < ny; y++) {
    for (let x = 0; x < nx; x++) field[y * nx + x] = 273.15 + 20 * Math.sin(y / 90) * Math.cos(x / 130) + Math.random() * 0.1;
  }
  await temperature.set(undefined, field);
  step(`wrote ${(field.byteLength / 2 ** 20).toFixed(0)} MiB`);

  const reopened = await ZarrArray.open(store, '/temperature');
  const all = await reopened.get();
  const same = (all.data as Float32Array).every((v, i) => Object.is(v, field[i]));
  step(`read it back whole: ${same ? 'identical' : 'DIFFERENT'} (${all.shape.join(' x ')} values)`);

  const window = await reopened.get([slice(500, 503), slice(1000, 1004)]);
  const rows = Array.from({ length: 3 }, (_, r) => Array.from((window.data as Float32Array).subarray(r * 4, r * 4 + 4), (v) => v.toFixed(2)).join('  '));
  step(`read a 3 x 4 window at [500:503, 1000:1004]:\n      ${rows.join('\n      ')}`);

  const column = await reopened.get([slice(null, null, -256), 7]);
  step(`read every 256th row of column 7, backwards: [${Array.from(column.data as Float32Array, (v) => v.toFixed(1)).join(', ')}]`);

  if (!same) throw new Error('demo: the data read back differs from what was written');
}

function stepper(): (what: string) => void {
  let last = performance.now();
  let n = 0;
  return (what) => {
    const now = performance.now();
    console.log(`${String(++n).padStart(2)}. ${what}  (${(now - last).toFixed(0)} ms)`);
    last = now;
  };
}
