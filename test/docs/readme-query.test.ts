// The README's query example states the result's dimensions, shape and type in comments beside its
// console.log calls; this runs the example (with 'floe' pointing at this checkout) and compares what
// it prints with those comments, so the stated shape cannot drift from what a query returns.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const readme = readFileSync(path.join(root, 'README.md'), 'utf8');
const block = [...readme.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1] ?? '').find((b) => b.includes('query(session)')) ?? '';

it('prints what the README query example says it prints', () => {
  const stated = block.split('\n').filter((l) => l.startsWith('console.log(')).map((l) => /\/\/ (.*)$/.exec(l)?.[1] ?? '');
  expect(stated).toEqual(["[ 'time', 'lat', 'lon' ] [ 31, 80, 360 ]", 'Float32Array']);
  const dir = mkdtempSync(path.join(tmpdir(), 'floe-readme-query-'));
  try {
    const file = path.join(dir, 'example.mts');
    writeFileSync(file, block.replaceAll("from 'floe'", `from ${JSON.stringify(path.join(root, 'src', 'index.ts'))}`) + '\nprocess.exit(0);\n');
    const printed = execFileSync(path.join(root, 'node_modules', '.bin', 'tsx'), [file], { cwd: dir, encoding: 'utf8', timeout: 60_000 }).trimEnd().split('\n');
    expect(printed).toEqual(stated);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}, 90_000);
