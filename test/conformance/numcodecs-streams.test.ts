// Every numcodecs fixture stream for a codec Floe implements decodes to its reference array.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { allCodecImplementations, createZarrV3BytesCodec, createZarrV1Compressor } from '../../src/format/codecs/registry.ts';
import type { BytesToBytesCodec } from '../../src/format/codecs/types.ts';
import { parseNpy } from '../support/npy.ts';
import { fixturePath } from '../support/fixtures.ts';

// Codecs built through the registry's synchronous lookups: load the lazy ones first.
await allCodecImplementations();

type Config = Record<string, unknown>;
const ctx = { itemSize: 1 };

const CODECS: Record<string, (config: Config) => BytesToBytesCodec> = {
  blosc: ({ id: _id, ...opts }) => createZarrV1Compressor('blosc', opts, ctx),
  bz2: (c) => createZarrV1Compressor('bz2', c.level, ctx),
  crc32c: () => createZarrV3BytesCodec('crc32c', undefined, ctx),
  gzip: (c) => createZarrV3BytesCodec('gzip', { level: Math.max(0, c.level as number) }, ctx),
  lzma: ({ id: _id, ...opts }) => createZarrV1Compressor('lzma', opts, ctx),
  zlib: (c) => createZarrV1Compressor('zlib', c.level, ctx),
  zstd: (c) => createZarrV3BytesCodec('zstd', { level: c.level, checksum: c.checksum ?? false }, ctx),
};

const root = fixturePath('zarr', 'numcodecs-streams', 'fixture');

describe.each(Object.keys(CODECS))('numcodecs %s streams', (name) => {
  const dir = path.join(root, name);
  const codecDirs = readdirSync(dir).filter((d) => d.startsWith('codec.'));

  it('has fixtures', () => {
    expect(codecDirs.length).toBeGreaterThan(0);
  });

  it.each(codecDirs)('%s decodes every stream to its array', (codecDir) => {
    const config = JSON.parse(readFileSync(path.join(dir, codecDir, 'config.json'), 'utf8')) as Config;
    const codec = CODECS[name]!(config);
    const streams = readdirSync(path.join(dir, codecDir)).filter((f) => f.endsWith('.dat'));
    expect(streams.length).toBeGreaterThan(0);
    for (const stream of streams) {
      const index = stream.split('.')[1]!;
      const expected = parseNpy(readFileSync(path.join(dir, `array.${index}.npy`))).data;
      const decoded = codec.decode(readFileSync(path.join(dir, codecDir, stream)));
      expect(Buffer.from(decoded).equals(Buffer.from(expected)), `${codecDir}/${stream}`).toBe(true);
    }
  });
});
