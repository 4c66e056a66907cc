// Decode (and encode) throughput of each bytes->bytes codec on a 4 MiB float32 buffer of a
// smooth signal plus noise. Run: npx tsx bench/codecs.ts [--size-kb 4096] [--min-ms 400]
// (--min-ms: how long each decode is repeated; encodes take half. bench:quick uses a small buffer
// and short loops: bz2 level 9 encodes ~1 MB/s, so 4 MiB costs seconds per encode.)
import { parseArgs } from 'node:util';
import { allCodecImplementations, createZarrV3BytesCodec, createZarrV1Compressor } from '../src/format/codecs/registry.ts';
import type { BytesToBytesCodec } from '../src/format/codecs/types.ts';

// Codecs built through the registry's synchronous lookups: load the lazy ones first.
await allCodecImplementations();

const { values: opts } = parseArgs({
  options: { 'size-kb': { type: 'string', default: '4096' }, 'min-ms': { type: 'string', default: '400' } },
});
const SIZE_KB = Number(opts['size-kb']);
const MIN_MS = Number(opts['min-ms']);
if (!(SIZE_KB >= 4 && Number.isInteger(SIZE_KB)) || !(MIN_MS >= 0)) throw new Error('--size-kb must be an integer >= 4 and --min-ms >= 0');

const values = new Float32Array(SIZE_KB * 256);
let seed = 42;
for (let i = 0; i < values.length; i++) {
  seed = (seed * 1103515245 + 12345) >>> 0;
  values[i] = Math.sin(i / 500) * 100 + (seed / 2 ** 32 - 0.5) * 0.1;
}
const data = new Uint8Array(values.buffer);
const ctx = { itemSize: 4 };

const cases: [string, BytesToBytesCodec][] = [
  ['gzip level 5', createZarrV3BytesCodec('gzip', { level: 5 }, ctx)],
  ['zstd level 3', createZarrV3BytesCodec('zstd', { level: 3 }, ctx)],
  ['crc32c', createZarrV3BytesCodec('crc32c', undefined, ctx)],
  ...['blosclz', 'lz4', 'lz4hc', 'snappy', 'zlib', 'zstd'].flatMap((cname) =>
    (['shuffle', 'bitshuffle'] as const).map(
      (shuffle): [string, BytesToBytesCodec] => [
        `blosc ${cname} ${shuffle}`,
        createZarrV3BytesCodec('blosc', { cname, clevel: 5, shuffle, typesize: 4, blocksize: 0 }, ctx),
      ],
    ),
  ),
  ['v1 zlib level 1', createZarrV1Compressor('zlib', 1, ctx)],
  ['v1 bz2 level 9', createZarrV1Compressor('bz2', 9, ctx)],
  ['v1 lzma xz', createZarrV1Compressor('lzma', { format: 1 }, ctx)],
];

function mbps(run: () => void, minMs: number): number {
  run();
  let n = 0;
  const start = performance.now();
  while (performance.now() - start < minMs) {
    run();
    n++;
  }
  return (n * data.length) / 1e6 / ((performance.now() - start) / 1000);
}

console.log(`${SIZE_KB} KiB float32 buffer, each encode repeated for ${MIN_MS / 2} ms and each decode for ${MIN_MS} ms`);
console.log('codec'.padEnd(28), 'ratio'.padStart(6), 'encode MB/s'.padStart(12), 'decode MB/s'.padStart(12));
for (const [name, codec] of cases) {
  const encoded = codec.encode(data);
  const back = codec.decode(encoded);
  if (!Buffer.from(back).equals(Buffer.from(data))) throw new Error(`${name}: round trip failed`);
  const enc = mbps(() => codec.encode(data), MIN_MS / 2);
  const dec = mbps(() => codec.decode(encoded), MIN_MS);
  console.log(name.padEnd(28), (data.length / encoded.length).toFixed(2).padStart(6), enc.toFixed(0).padStart(12), dec.toFixed(0).padStart(12));
}
