// The build's comment stripper (scripts/strip-js-comments.mjs): comments go, code stays token for
// token, line numbers stay put.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { stripComments } from '../../scripts/strip-js-comments.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** The code tokens of a JavaScript module, comments and JSDoc excluded. */
function tokens(text: string): string[] {
  const file = ts.createSourceFile('m.js', text, ts.ScriptTarget.Latest, true, ts.ScriptKind.JS);
  const out: string[] = [];
  const visit = (node: ts.Node): void => {
    const children = node.getChildren(file).filter((c) => c.kind < ts.SyntaxKind.FirstJSDocNode || c.kind > ts.SyntaxKind.LastJSDocNode);
    if (children.length === 0) out.push(`${ts.SyntaxKind[node.kind]} ${node.getText(file)}`);
    for (const child of children) visit(child);
  };
  visit(file);
  return out;
}

const lines = (text: string) => text.split('\n').length;

describe('stripComments', () => {
  it('removes line, block and JSDoc comments and keeps their line breaks', () => {
    const source = [
      '// header',
      '/**',
      ' * Doc.',
      ' */',
      'export function f(a) { // trailing',
      '  return a /* inline */ + 1;',
      '}',
    ].join('\n');
    expect(stripComments(source)).toBe(['', '', '', '', 'export function f(a) {', '  return a + 1;', '}'].join('\n'));
  });

  it('leaves comment-like text inside strings, templates and regular expressions', () => {
    const source = [
      "const url = 'http://x/*y*/';",
      'const t = `a // b ${/* gone */ 1} /* c */`;',
      'const r = /\\/\\*[^*]*\\*\\//g; // gone',
      'const d = 6 / 2 / 3;',
    ].join('\n');
    const out = stripComments(source);
    expect(out).toBe([
      "const url = 'http://x/*y*/';",
      'const t = `a // b ${ 1} /* c */`;',
      'const r = /\\/\\*[^*]*\\*\\//g;',
      'const d = 6 / 2 / 3;',
    ].join('\n'));
  });

  it('keeps two tokens apart where a block comment stood between them', () => {
    expect(stripComments('return/**/x')).toBe('return x');
    expect(tokens(stripComments('a = b/**/-1'))).toEqual(tokens('a = b -1'));
  });

  it('keeps a line break a block comment held (automatic semicolon insertion depends on it)', () => {
    expect(stripComments('return /*\n*/ x')).toBe('return\n x');
  });

  it('keeps a shebang line', () => {
    expect(stripComments('#!/usr/bin/env node\n// c\nrun();')).toBe('#!/usr/bin/env node\n\nrun();');
  });

  it('changes no token and no line number of any Floe module as tsc emits it', () => {
    const dir = path.join(root, 'src/query');
    const files = readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
    expect(files.length).toBeGreaterThan(20);
    let removed = 0;
    for (const file of files) {
      const ts2js = ts.transpileModule(readFileSync(path.join(dir, file), 'utf8'), {
        compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext, verbatimModuleSyntax: false },
      }).outputText;
      const stripped = stripComments(ts2js, file);
      expect(tokens(stripped), file).toEqual(tokens(ts2js));
      expect(lines(stripped), file).toBe(lines(ts2js));
      expect(stripped, file).not.toMatch(/^\s*\/\//m);
      removed += ts2js.length - stripped.length;
    }
    expect(removed).toBeGreaterThan(10_000);
  });
});
