// Issue 17, stage 1: branch and tag names are checked when they are created, in the API and the
// CLI, with INVALID_NAME naming the broken rule; names already stored (the reference's fixture
// tags `it works!`, `it also works!`) are still opened, listed and checked out.
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { isFloeError } from '../../src/errors.ts';
import { MAX_REF_NAME_BYTES, refNameProblem } from '../../src/txn/ref-names.ts';
import { Repository, Storage } from '../../src/txn/index.ts';
import { fixturePath } from '../support/fixtures.ts';
import { floe } from '../cli/helpers.ts';

const scratch = mkdtempSync(path.join(tmpdir(), 'floe-hostile-refs-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
let copies = 0;
function copyFixture(name: string): string {
  const dir = path.join(scratch, `${name}-${copies++}`);
  cpSync(fixturePath('icechunk/repos', name), dir, { recursive: true });
  return dir;
}

const REFUSED: [string, string][] = [
  ['', 'empty'],
  ['a:b', 'forbidden-character'],
  ['../x', 'slash'],
  ['..', 'double-dot'],
  ['a..b', 'double-dot'],
  ['a~1', 'forbidden-character'],
  ['v1^', 'forbidden-character'],
  ['a\\b', 'forbidden-character'],
  ['what?', 'forbidden-character'],
  ['glob*', 'forbidden-character'],
  ['[x', 'forbidden-character'],
  ['it works!', 'control-or-space'],
  ['tab\there', 'control-or-space'],
  ['nul\u0000', 'control-or-space'],
  ['del\u007f', 'control-or-space'],
  ['c1\u0085', 'control-or-space'],
  ['-rf', 'leading-dash'],
  ['/abs', 'slash'],
  ['a/b', 'slash'],
  ['a//b', 'slash'],
  ['trailing/', 'slash'],
  ['.hidden', 'leading-dot'],
  ['.', 'leading-dot'],
  ['x.lock', 'lock-suffix'],
  ['x.', 'trailing-dot'],
  ['a@{1}', 'at-brace'],
  ['@', 'lone-at'],
  ['x'.repeat(MAX_REF_NAME_BYTES + 1), 'too-long'],
  ['é'.repeat(128), 'too-long'], // 256 bytes of UTF-8 in 128 characters
  ['x'.repeat(100_000), 'too-long'],
  ['bad\uD800', 'unpaired-surrogate'],
];
const ACCEPTED = ['main', 'v1.0', 'release-2024_01', 'a@b', 'ünïcødé', '日本', 'x'.repeat(MAX_REF_NAME_BYTES), 'é'.repeat(127), 'a.b.c', '🚀'];

describe('new ref names: table', () => {
  it.each(REFUSED)('refuses %j (%s)', (name, rule) => {
    expect(refNameProblem(name)).toBe(rule);
  });
  it.each(ACCEPTED)('accepts %j', (name) => {
    expect(refNameProblem(name)).toBeNull();
  });
  it('refuses what is not a string', () => {
    expect(refNameProblem(42)).toBe('not-a-string');
    expect(refNameProblem(undefined)).toBe('not-a-string');
  });
});

/** The rules stated plainly, one predicate each, independent of the implementation's order. */
function modelAccepts(name: string): boolean {
  const bytes = Buffer.byteLength(name, 'utf8');
  const wellFormed = Buffer.from(name, 'utf8').toString('utf8') === name;
  const chars = [...name];
  return name.length > 0 && bytes <= MAX_REF_NAME_BYTES && wellFormed
    && chars.every((c) => { const p = c.codePointAt(0)!; return p > 0x20 && !(p >= 0x7f && p <= 0x9f); })
    && !chars.some((c) => ':~^\\?*[/'.includes(c))
    && !name.includes('..') && !name.startsWith('-') && !name.startsWith('.') && !name.endsWith('.')
    && !name.endsWith('.lock') && !name.includes('@{') && name !== '@';
}

// Names built from the pieces attacks are made of, so most samples hit some rule's edge.
const hostilePiece = fc.constantFrom('..', '.', '/', '\\', ':', '~', '^', '?', '*', '[', ']', '@', '{', '@{', '-', '.lock', ' ', '\u0000', '\t', '\u007f', '\u0085',
  '%2e', 'a', 'main', 'é', '🚀', '\uD800', '\uDC00', 'x'.repeat(60));
const hostileName = fc.oneof(
  fc.array(hostilePiece, { minLength: 0, maxLength: 8 }).map((parts) => parts.join('')),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 300 }),
);

describe('new ref names: property', () => {
  it('accepts exactly what the model accepts, and refuses with a rule', () => {
    fc.assert(fc.property(hostileName, (name) => {
      const problem = refNameProblem(name);
      expect(problem === null).toBe(modelAccepts(name));
    }), { numRuns: 2000, seed: 17 });
  });
});

describe('new ref names: every creating path', () => {
  it('Repository.createBranch / createTag refuse with INVALID_NAME and rule, and change nothing', async () => {
    const repo = await Repository.create(Storage.newInMemory());
    const main = await repo.lookupBranch('main');
    for (const [name, rule] of REFUSED) {
      for (const create of [repo.createBranch.bind(repo), repo.createTag.bind(repo)]) {
        const err: unknown = await create(name, main).then(() => undefined, (e: unknown) => e);
        if (!isFloeError(err, 'INVALID_NAME')) throw new Error(`expected INVALID_NAME for ${JSON.stringify(name)}, got ${String(err)}`);
        expect(err.details.rule).toBe(rule);
        expect(err.message).toContain('cannot be a new');
      }
    }
    expect(await repo.listBranches()).toEqual(['main']);
    expect(await repo.listTags()).toEqual([]);
    await repo.createBranch('ok-1', main);
    await repo.createTag('v1.0', main);
    expect(await repo.listBranches()).toEqual(['main', 'ok-1']);
  });

  it('the CLI refuses a bad branch or tag name with the code and leaves the repository as it was', async () => {
    const dir = path.join(scratch, `cli-${copies++}`);
    await Repository.create(Storage.newLocalFilesystem(dir));
    const cli = (...argv: string[]) => floe([...argv, '--repo', dir], { cwd: scratch });
    for (const name of ['a:b', '../x', 'x.lock']) {
      const branch = await cli('branch', 'create', name);
      expect(branch.code).not.toBe(0);
      expect(branch.stderr).toContain('INVALID_NAME');
      const tag = await cli('tag', 'create', name, 'main');
      expect(tag.code).not.toBe(0);
      expect(tag.stderr).toContain('INVALID_NAME');
    }
    const repo = await Repository.open(Storage.newLocalFilesystem(dir));
    expect(await repo.listBranches()).toEqual(['main']);
    expect(await repo.listTags()).toEqual([]);
  });

  it('names already stored are read as they are: the fixture tags open, list and check out', async () => {
    for (const fixture of ['test-repo-v1', 'test-repo-v2']) {
      const repo = await Repository.open(Storage.newLocalFilesystem(copyFixture(fixture)));
      expect(await repo.listTags()).toEqual(['it also works!', 'it works!']);
      for (const tag of ['it works!', 'it also works!']) {
        const session = await repo.readonlySession({ tag });
        expect(session.snapshotId).toBe(await repo.lookupTag(tag));
      }
      if (repo.specVersion === 2) {
        // Branching from a stored odd name is fine; only the new name is checked.
        await repo.createBranch('from-odd-tag', await repo.lookupTag('it works!'));
        expect(await repo.listBranches()).toContain('from-odd-tag');
        await expect(repo.createTag('it works again!', await repo.lookupBranch('main'))).rejects.toMatchObject({ code: 'INVALID_NAME' });
      }
    }
  });
});
