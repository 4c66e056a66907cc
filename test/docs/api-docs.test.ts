// The API reference build (`npm run docs`, typedoc.json) as a test: every public export of `floe`
// and `floe/testing` must carry a TSDoc comment, links must resolve, and every type a public
// signature mentions must be exported (or listed as intentionally internal). TypeDoc runs with
// `--emit none`: validation is the same as for the HTML build, nothing is written.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const typedocBin = path.join(path.dirname(createRequire(import.meta.url).resolve('typedoc/package.json')), 'bin', 'typedoc');

interface Run {
  code: number;
  output: string;
}

/** Runs TypeDoc with an options file (default: the project's); resolves with its exit code and output. */
function typedoc(options = path.join(root, 'typedoc.json')): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [typedocBin, '--options', options, '--emit', 'none'],
      { cwd: root, env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' }, maxBuffer: 16 * 2 ** 20 },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
        resolve({ code, output: `${stdout}${stderr}`.replace(/\x1b\[[0-9;]*m/g, '') });
      },
    );
  });
}

const problems = (output: string): string[] => output.split('\n').filter((line) => /\[(warning|error)\]/.test(line));

describe('API reference (TypeDoc)', () => {
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'floe-typedoc-'));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it('builds with no warnings: every public export is documented', async () => {
    const started = performance.now();
    const run = await typedoc();
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    expect(problems(run.output), `typedoc (${seconds} s) reported:\n${run.output}`).toEqual([]);
    expect(run.code).toBe(0);
  }, 240_000);

  it('fails on an undocumented export (the same options over a one-file fixture)', async () => {
    writeFileSync(path.join(scratch, 'tsconfig.json'), JSON.stringify({ compilerOptions: { strict: true, module: 'NodeNext', moduleResolution: 'NodeNext', target: 'ES2022', noEmit: true }, files: ['index.ts'] }));
    writeFileSync(path.join(scratch, 'index.ts'), '/** Documented. */\nexport function documented(): number {\n  return 1;\n}\n\nexport function undocumented(): number {\n  return 2;\n}\n');
    // Extends the project's options (an --entryPoints/--tsconfig override on the command line
    // would come too late: TypeDoc reads the tsconfig named in the options file first).
    writeFileSync(path.join(scratch, 'typedoc.json'), JSON.stringify({
      extends: [path.join(root, 'typedoc.json')], name: 'fixture', entryPoints: ['index.ts'], tsconfig: 'tsconfig.json', intentionallyNotExported: [],
    }));
    const run = await typedoc(path.join(scratch, 'typedoc.json'));
    const found = problems(run.output);
    expect(found.some((line) => line.includes('undocumented') && line.includes('does not have any documentation')), run.output).toBe(true);
    expect(found.some((line) => /\bdocumented \(/.test(line)), run.output).toBe(false);
    expect(run.code).not.toBe(0);
  }, 120_000);
});
