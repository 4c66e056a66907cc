// Decode (and encode) throughput of each bytes->bytes codec on a 4 MiB float32 buffer of a
// smooth signal plus noise. Run: npx tsx bench/codecs.ts
import { allCodecImplementations, createZarrV3BytesCodec, createZarrV1Compressor } from '../src/format/codecs/registry.ts';
import type { BytesToBytesCodec } from '../src/format/codecs/types.ts';

// Codecs built through the registry's synchronous lookups: load the lazy ones first.
await allCodecImplementations();

const values = new Float32Array(1 << 20);
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

function mbps(run: () => void, minMs = 400): number {
  run();
  let n = 0;
  const start = performance.now();
  while (performance.now() - start < minMs) {
    run();
    n++;
  }
  return (n * data.length) / 1e6 / ((performance.now() - start) / 1000);
}

console.log('codec'.padEnd(28), 'ratio'.padStart(6), 'encode MB/s'.padStart(12), 'decode MB/s'.padStart(12));
for (const [name, codec] of cases) {
  const encoded = codec.encode(data);
  const back = codec.decode(encoded);
  if (!Buffer.from(back).equals(Buffer.from(data))) throw new Error(`${name}: round trip failed`);
  const enc = mbps(() => codec.encode(data), 200);
  const dec = mbps(() => codec.decode(encoded));
  console.log(name.padEnd(28), (data.length / encoded.length).toFixed(2).padStart(6), enc.toFixed(0).padStart(12), dec.toFixed(0).padStart(12));
}
