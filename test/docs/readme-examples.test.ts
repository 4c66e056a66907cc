// The README's code blocks are run as written (with 'floe' pointing at this checkout), so the
// examples cannot drift from the API. Blocks with a `(fragment` comment continue an earlier one and are skipped.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const readme = readFileSync(path.join(root, 'README.md'), 'utf8');
const blocks = [...readme.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]!).filter((b) => !b.includes('(fragment'));

describe('README examples', () => {
  it('has examples to run', () => expect(blocks.length).toBeGreaterThanOrEqual(2));
  blocks.forEach((block, i) => {
    it(`runs block ${i + 1}`, () => {
      const dir = mkdtempSync(path.join(tmpdir(), 'floe-readme-'));
      try {
        const entry = path.join(root, 'src', 'index.ts');
        const source = block.replaceAll("from 'floe'", `from ${JSON.stringify(entry)}`) + '\nprocess.exit(0);\n';
        const file = path.join(dir, 'example.mts');
        writeFileSync(file, source);
        const tsx = path.join(root, 'node_modules', '.bin', 'tsx');
        execFileSync(tsx, [file], { cwd: dir, stdio: 'pipe', timeout: 60_000 });
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });
});
