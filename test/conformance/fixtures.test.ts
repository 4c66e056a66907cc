// test/fixtures is what the conformance tests trust: every file must be the one PROVENANCE.md
// describes. Recomputes SHA256SUMS and the per-folder digests, and shows the checker catches a
// changed, a missing and an extra file on a planted copy.
import { appendFileSync, cpSync, mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { diffSums, FIXTURES_DIR, fixturePath, folderDigest, hashFixtureFiles, parseSums, provenanceDigests } from '../support/fixtures.ts';

const recorded = parseSums(readFileSync(fixturePath('SHA256SUMS'), 'utf8'));
const provenance = provenanceDigests(readFileSync(fixturePath('PROVENANCE.md'), 'utf8'));

describe('test/fixtures', () => {
  const found = hashFixtureFiles(FIXTURES_DIR);

  it('every file matches SHA256SUMS, none is missing, none is extra', () => {
    expect(recorded.size).toBeGreaterThan(1000);
    expect(diffSums(recorded, found)).toEqual({ missing: [], extra: [], changed: [] });
  });

  it('every folder in PROVENANCE.md has the digest its files give, and the folders cover every file', () => {
    expect(provenance.size).toBe(12);
    for (const [folder, digest] of provenance) expect(folderDigest(found, folder), folder).toBe(digest);
    const uncovered = [...found.keys()].filter((f) => ![...provenance.keys()].some((folder) => f.startsWith(`${folder}/`)));
    expect(uncovered).toEqual([]);
  });
});

describe('the checksum check on a planted copy', () => {
  let scratch: string | undefined;
  afterEach(() => {
    if (scratch) rmSync(scratch, { recursive: true, force: true });
    scratch = undefined;
  });

  it('reports a changed, a missing and an extra file, and the folder digest moves', () => {
    scratch = mkdtempSync(path.join(tmpdir(), 'floe-fixtures-'));
    const folder = 'zarr/v1';
    cpSync(path.join(FIXTURES_DIR, folder), path.join(scratch, folder), { recursive: true });
    const want = new Map([...recorded].filter(([f]) => f.startsWith(`${folder}/`)));
    expect(diffSums(want, hashFixtureFiles(scratch))).toEqual({ missing: [], extra: [], changed: [] });

    const changed = `${folder}/spec_example_zlib_i4/meta`;
    const missing = `${folder}/bz2_f8_ragged/attrs`;
    const extra = `${folder}/zlib9_u1_2d/0.9`;
    appendFileSync(path.join(scratch, changed), ' ');
    unlinkSync(path.join(scratch, missing));
    writeFileSync(path.join(scratch, extra), '');
    const planted = hashFixtureFiles(scratch);
    expect(diffSums(want, planted)).toEqual({ missing: [missing], extra: [extra], changed: [changed] });
    expect(folderDigest(planted, folder)).not.toBe(provenance.get(folder));
  });
});
