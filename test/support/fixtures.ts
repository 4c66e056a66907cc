// Locates test/fixtures: copies of the conformance data other implementations wrote (see
// test/fixtures/PROVENANCE.md), kept in the repository so a fresh clone tests with nothing beside it.
// Also the checksum code test/fixtures.test.ts uses to prove the copies are unchanged.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

export const FIXTURES_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures');

/** The files in test/fixtures that describe the data rather than being data. */
export const FIXTURE_META_FILES = ['PROVENANCE.md', 'SHA256SUMS'] as const;

/** Absolute path of a file under test/fixtures; throws if it is not there (a test must fail, not skip). */
export function fixturePath(...parts: string[]): string {
  const p = path.join(FIXTURES_DIR, ...parts);
  if (!existsSync(p)) throw new Error(`fixture missing: ${p} (see test/fixtures/PROVENANCE.md)`);
  return p;
}

/** Byte order, as `LC_ALL=C sort` gives, so the sums match the shell recipe in PROVENANCE.md. */
const byteOrder = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));

/** Every data file under `root` ('/'-separated relative paths, byte order), without the meta files. */
export function listFixtureFiles(root: string): string[] {
  const out: string[] = [];
  const walk = (rel: string) => {
    for (const entry of readdirSync(path.join(root, rel), { withFileTypes: true })) {
      const child = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isDirectory()) walk(child);
      else if (!(rel === '' && (FIXTURE_META_FILES as readonly string[]).includes(entry.name))) out.push(child);
    }
  };
  walk('');
  return out.sort(byteOrder);
}

/** path → sha256 (hex) of every data file under `root`, in byte order of path. */
export function hashFixtureFiles(root: string): Map<string, string> {
  return new Map(listFixtureFiles(root).map((f) => [f, createHash('sha256').update(readFileSync(path.join(root, f))).digest('hex')]));
}

/** `sha256sum` output format: one `<hex>  <path>` line per file, each ending in a newline. */
export function formatSums(sums: Map<string, string>): string {
  return [...sums].map(([f, h]) => `${h}  ${f}\n`).join('');
}

export function parseSums(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of text.split('\n')) {
    if (!line) continue;
    const m = /^([0-9a-f]{64}) {2}(.+)$/.exec(line);
    if (!m) throw new Error(`not a sha256sum line: ${JSON.stringify(line)}`);
    out.set(m[2]!, m[1]!);
  }
  return out;
}

export interface SumsDiff {
  missing: string[];
  extra: string[];
  changed: string[];
}

/** What differs between the recorded sums and the files found. */
export function diffSums(recorded: Map<string, string>, found: Map<string, string>): SumsDiff {
  return {
    missing: [...recorded.keys()].filter((f) => !found.has(f)),
    extra: [...found.keys()].filter((f) => !recorded.has(f)),
    changed: [...recorded].filter(([f, h]) => found.has(f) && found.get(f) !== h).map(([f]) => f),
  };
}

/**
 * One folder's digest: sha256 of its lines of the sums listing (paths relative to test/fixtures),
 * i.e. `grep -F '  <folder>/' SHA256SUMS | sha256sum`. It covers names as well as contents.
 */
export function folderDigest(sums: Map<string, string>, folder: string): string {
  const lines = [...sums].filter(([f]) => f.startsWith(`${folder}/`));
  return createHash('sha256').update(formatSums(new Map(lines))).digest('hex');
}

/** The `| folder | ... | sha256 |` rows of PROVENANCE.md: folder → digest (first and last cells). */
export function provenanceDigests(markdown: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of markdown.split('\n')) {
    const cells = line.split('|').map((c) => c.trim());
    const folder = /^`([^`]+)`$/.exec(cells[1] ?? '')?.[1];
    const digest = /^`([0-9a-f]{64})`$/.exec(cells.at(-2) ?? '')?.[1];
    if (folder && digest) out.set(folder, digest);
  }
  return out;
}
