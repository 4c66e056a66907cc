// numcodecs' VLenUTF8 / VLenBytes reference streams (never regenerated, so they pin the wire
// format zarr-python's vlen-utf8 / vlen-bytes codecs use) decode to their arrays, and Floe's
// encoder writes the same bytes back.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildCodecChain } from '../../src/format/codecs/pipeline.ts';
import { parseDataType } from '../../src/format/zarr/data-types.ts';
import { defaultFillValue } from '../../src/format/zarr/fill-value.ts';
import { fixturePath } from '../support/fixtures.ts';

interface ArrayEntry {
  shape: number[];
  fortran_order: boolean;
  values_json: string;
}
interface Values {
  encoding: 'hex' | 'utf8-or-none';
  values: (string | null)[];
}

const root = fixturePath('zarr', 'numcodecs-streams');
const index = JSON.parse(readFileSync(path.join(root, 'INDEX.json'), 'utf8')) as Record<string, { arrays: Record<string, ArrayEntry> }>;

describe.each([
  ['vlen-utf8', 'string'],
  ['vlen-bytes', 'variable_length_bytes'],
] as const)('numcodecs %s streams', (codec, dataType) => {
  const dir = path.join(root, 'fixture', codec);
  const arrays = Object.entries(index[codec]!.arrays);

  it('has fixtures', () => expect(arrays.length).toBeGreaterThanOrEqual(4));

  it.each(arrays)('%s decodes from every codec config and re-encodes byte-identically', (file, entry) => {
    const values = JSON.parse(readFileSync(path.join(dir, entry.values_json), 'utf8')) as Values;
    // numcodecs encodes None as an empty element.
    const expected = values.values.map((v) => (values.encoding === 'hex' ? new Uint8Array(Buffer.from(v ?? '', 'hex')) : (v ?? '')));
    const n = entry.shape.reduce((a, b) => a * b, 1);
    expect(expected.length).toBe(n);
    const dt = parseDataType(dataType);
    // numcodecs flattens in the array's own order (order='A'), so the stream is 1-d either way.
    const chain = buildCodecChain([{ name: codec }], { shape: [n], dataType: dt, fillValue: defaultFillValue(dt) });
    const codecDirs = readdirSync(dir).filter((d) => d.startsWith('codec.'));
    expect(codecDirs.length).toBeGreaterThan(0);
    for (const c of codecDirs) {
      const stream = readFileSync(path.join(dir, c, `encoded.${file.split('.')[1]}.dat`));
      const decoded = chain.decode(new Uint8Array(stream)).data;
      expect(decoded, `${c}/${file}`).toEqual(expected);
      expect(Buffer.from(chain.encode({ data: decoded, shape: [n], stride: [1] })).equals(stream), `${c}/${file} re-encoded`).toBe(true);
    }
  });
});
