// docs/cli.md is a transcript a user can paste: every ```console block runs, in order, in one
// temporary directory, with `floe` on PATH as the built CLI (bin/floe.mjs over dist/), and each
// command's output (stdout and stderr as a terminal interleaves them) must match what the page
// shows, placeholders allowed (test/support/transcript.ts). The plots the page shows are the ones
// its commands write. And no page imports Floe's source files: users import from 'floe'.
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { decode } from 'fast-png';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { linePattern, matchesTranscript, transcriptBlocks } from '../support/transcript.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const page = readFileSync(path.join(root, 'docs/cli.md'), 'utf8');
const blocks = transcriptBlocks(page);
/** Generous: a command is one Node process (about a second), the demo a few; the machine may be busy. */
const COMMAND_MS = 120_000;

let work: string;
let env: Record<string, string>;

beforeAll(() => {
  work = mkdtempSync(path.join(tmpdir(), 'floe-cli-docs-'));
  const bin = path.join(work, '.bin');
  mkdirSync(bin);
  const shim = path.join(bin, 'floe');
  writeFileSync(shim, `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(path.join(root, 'bin/floe.mjs'))} "$@"\n`);
  chmodSync(shim, 0o755);
  const { FLOE_REPO: _repo, FLOE_DEBUG: _debug, ...rest } = process.env;
  env = { ...(rest as Record<string, string>), PATH: `${bin}:${process.env.PATH ?? ''}`, FORCE_COLOR: '0', HOME: work };
});

afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('transcript matching', () => {
  it('matches placeholders and elided lines, and nothing else', () => {
    expect(linePattern('tag <ID> at <DATE>, <N> s (<...>)').test('tag 1CECHNKREP0F1RSTCMT0 at 2026-11-26T13:14:58.223Z, 0.21 s (any text)')).toBe(true);
    expect(linePattern('tag <ID>').test('tag 1CECHNKREP0F1RSTCMT')).toBe(false);
    expect(linePattern('a.b').test('axb')).toBe(false);
    expect(matchesTranscript(['a', '...', 'z'], ['a', 'b', 'c', 'z'])).toBe(true);
    expect(matchesTranscript(['a', '...', 'z'], ['a', 'z'])).toBe(true);
    expect(matchesTranscript(['a', '...', 'z'], ['a', 'b'])).toBe(false);
    expect(matchesTranscript(['a', 'b'], ['a', 'b', 'c'])).toBe(false);
    expect(matchesTranscript(['<N> requests'], ['12 requests'])).toBe(true);
  });
});

describe('docs/cli.md', () => {
  it('shows transcripts of the read commands, the plots and the query', () => {
    const commands = blocks.flatMap((b) => b.commands.map((c) => c.command));
    expect(commands.length).toBeGreaterThanOrEqual(15);
    for (const name of ['demo', 'log', 'ls', 'show', 'cat', 'query', 'explain', 'diff', 'plot']) {
      expect(commands.some((c) => c.startsWith(`floe ${name} `) || c === `floe ${name}`), name).toBe(true);
    }
  });

  for (const block of blocks) {
    it(`runs the transcript at line ${block.line}`, () => {
      for (const { command, output, line } of block.commands) {
        const run = spawnSync('sh', ['-c', `${command} 2>&1`], { cwd: work, env, encoding: 'utf8', timeout: COMMAND_MS });
        const actual = run.stdout.replace(/\n$/, '').split('\n');
        const shown = output.length === 1 && output[0] === '' ? [] : output;
        const got = actual.length === 1 && actual[0] === '' ? [] : actual;
        expect(matchesTranscript(shown, got), `docs/cli.md:${line}: $ ${command}\n--- documented\n${shown.join('\n')}\n--- printed\n${got.join('\n')}`).toBe(true);
      }
    }, COMMAND_MS * 4);
  }

  it('shows the plots its commands write', () => {
    const images = [...page.matchAll(/\]\((images\/[^)]+\.png)\)/g)].map((m) => m[1] ?? '');
    expect(images.length).toBeGreaterThanOrEqual(2);
    for (const image of images) {
      const documented = decode(readFileSync(path.join(root, 'docs', image)));
      const written = path.join(work, path.basename(image));
      expect(existsSync(written), `${image}: a command on the page writes ${path.basename(image)}`).toBe(true);
      const fresh = decode(readFileSync(written));
      expect([fresh.width, fresh.height], image).toEqual([documented.width, documented.height]);
    }
  });
});

describe('documentation imports', () => {
  it('imports from the package, never from source paths', () => {
    const pages = ['README.md', ...readdirSync(path.join(root, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];
    expect(pages.length).toBeGreaterThan(5);
    for (const file of pages) {
      const text = readFileSync(path.join(root, file), 'utf8');
      const imports = [...text.matchAll(/\bfrom\s+['"]([^'"]+)['"]|\bimport\s*\(\s*['"]([^'"]+)['"]/g)].map((m) => m[1] ?? m[2] ?? '');
      for (const specifier of imports) expect(specifier, `${file} imports ${specifier}`).toMatch(/^(floe(\/[a-z-]+)?|node:[a-z/]+|[a-z@][\w@/.-]*|\.\/floe\/[\w.-]+\.js)$/); // ./floe/…: a page's copy of dist/browser (docs/web.md)
      expect(text, file).not.toMatch(/from\s+['"](\.{1,2}\/)+(src|dist)\//);
    }
  });
});
