// One thread, one codec chain: a 1024 x 1024 float32 chunk of Blosc-LZ4 with byte shuffle (c-blosc's
// stream, numcodecs.js) decoded 16 times into a 4096 x 4096 result, the old way (chunk buffer, then
// copy out: copyFromChunk(chain.decode)) and the row path (chain.decodeRegion -> decodeIntoRuns),
// into a new SharedArrayBuffer each time (page faults included) and into an already-touched one.
//
//   npx tsx bench/blosc-rows.ts [--reps 9]        (FLOE_LZ4=js|napi picks the LZ4 decoder)
//
// Prints the best and median CPU ms (process.cpuUsage) per 64 MiB decoded, for each way.
import { parseArgs } from 'node:util';
import Blosc from 'numcodecs/blosc';
import { buildCodecChain } from '../src/format/codecs/pipeline.ts';
import { parseDataType } from '../src/format/zarr/data-types.ts';
import { parseFillValue } from '../src/format/zarr/fill-value.ts';
import { copyFromChunk } from '../src/format/zarr/projection.ts';
import { median } from './support/probe-runner.ts';

const { values: opts } = parseArgs({ options: { reps: { type: 'string', default: '9' } } });
const N = 1024;
const OUT = 4096;
const dataType = parseDataType('float32');
const chain = buildCodecChain(
  [{ name: 'bytes', configuration: { endian: 'little' } }, { name: 'blosc', configuration: { cname: 'lz4', clevel: 5, shuffle: 'shuffle', typesize: 4, blocksize: 0 } }],
  { shape: [N, N], dataType, fillValue: parseFillValue(dataType, 0) },
);
const values = new Float32Array(N * N);
let seed = 1;
for (let i = 0; i < values.length; i++) {
  seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
  values[i] = 100 * Math.sin(i / 3000) + 0.1 * (seed / 2 ** 32);
}
const encoded = await Blosc.fromConfig({ cname: 'lz4', clevel: 5, shuffle: 1, blocksize: 0 }).encode(new Uint8Array(values.buffer));
const whole = [0, 1].map(() => ({ chunk: 0, start: 0, step: 1, count: N, outStart: 0 }));

function decodeAll(rows: boolean, out: Float32Array): void {
  for (let k = 0; k < 16; k++) {
    const dst = { data: out, offset: (k % 4) * N + Math.floor(k / 4) * N * OUT, stride: [OUT, 1] };
    if (rows) chain.decodeRegion(encoded, whole, dst);
    else copyFromChunk(chain.decode(encoded), whole, dst, 1);
  }
}

const newResult = (): Float32Array => new Float32Array(new SharedArrayBuffer(OUT * OUT * 4));
const [a, b] = [newResult(), newResult()];
decodeAll(true, a);
decodeAll(false, b);
if (!Buffer.from(a.buffer).equals(Buffer.from(b.buffer))) throw new Error('the row path and the old path differ');
const touched = newResult();
decodeAll(false, touched);
for (const fresh of [true, false]) {
  for (const rows of [false, true, false, true]) {
    const cpu: number[] = [];
    for (let r = 0; r < Number(opts.reps); r++) {
      const out = fresh ? newResult() : touched;
      const c0 = process.cpuUsage();
      decodeAll(rows, out);
      const c = process.cpuUsage(c0);
      cpu.push((c.user + c.system) / 1000);
    }
    console.log(`${rows ? 'rows          ' : 'buffer + copy '} ${fresh ? 'new result    ' : 'touched result'} CPU ms per 64 MiB: best ${Math.min(...cpu).toFixed(0)}, median ${median(cpu).toFixed(0)}`);
  }
}
