// Every numcodecs fixture stream for a codec Floe implements decodes to its reference array.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BYTES_CODECS, V1_COMPRESSORS } from '../../src/format/codecs/bytes-codecs.ts';
import type { BytesToBytesCodec } from '../../src/format/codecs/types.ts';
import { parseNpy } from '../support/npy.ts';
import { fixturePath } from '../support/fixtures.ts';

type Config = Record<string, unknown>;
const ctx = { itemSize: 1 };

const CODECS: Record<string, (config: Config) => BytesToBytesCodec> = {
  blosc: ({ id: _id, ...opts }) => V1_COMPRESSORS.blosc!(opts, ctx),
  bz2: (c) => V1_COMPRESSORS.bz2!(c.level, ctx),
  crc32c: () => BYTES_CODECS.crc32c!(undefined, ctx),
  gzip: (c) => BYTES_CODECS.gzip!({ level: Math.max(0, c.level as number) }, ctx),
  lzma: ({ id: _id, ...opts }) => V1_COMPRESSORS.lzma!(opts, ctx),
  zlib: (c) => V1_COMPRESSORS.zlib!(c.level, ctx),
  zstd: (c) => BYTES_CODECS.zstd!({ level: c.level, checksum: c.checksum ?? false }, ctx),
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
