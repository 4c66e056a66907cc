// Build step after `tsc -p tsconfig.build.json`: removes the comments from the emitted JavaScript
// (dist/**/*.js), keeping every line break, so line numbers in stack traces stay those of the
// full build. The declarations (.d.ts) keep their doc comments: editors show them.
//
// Why: V8 keeps each module's source text for its whole life, and about a fifth of the JavaScript
// `import 'floe'` loads is comments (210 KB of 982 KB). That retained text pushed the old generation
// over V8's 8 MB threshold for incremental marking, and a cold process then ran an extra full GC
// during 20 queries (BENCHMARKS.md, "Issues 16/17: the query and session-read A/B").
//
// Comments are found by TypeScript's parser (a regular expression cannot tell a comment from
// `//` inside a string, a template or a regular expression literal).
//   node scripts/strip-js-comments.mjs DIR
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';

/** `text` (a JavaScript module) without comments; each comment leaves only its line breaks. */
export function stripComments(text, fileName = 'module.js') {
  const file = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.JS);
  const ranges = new Map();
  // Returns nothing: a truthy answer would stop TypeScript's walk over a run of comments.
  const collect = (pos, end) => {
    ranges.set(pos, end);
  };
  const visit = (node) => {
    ts.forEachLeadingCommentRange(text, node.pos, collect);
    ts.forEachTrailingCommentRange(text, node.end, collect);
    // JSDoc nodes lie inside comments (the parser reads JSDoc in .js files): not code to walk.
    for (const child of node.getChildren(file)) if (!isJSDocNode(child)) visit(child);
  };
  visit(file);
  let out = '';
  let at = 0;
  for (const [pos, end] of [...ranges].sort((a, b) => a[0] - b[0])) {
    if (pos < at) continue; // the same comment seen from two nodes
    // The spaces before a comment are trivia too (never inside a token): the line ends clean.
    out += text.slice(at, pos).replace(/[ \t]+$/, '');
    const breaks = text.slice(pos, end).match(/\r\n|[\n\r\u2028\u2029]/g)?.join('') ?? '';
    // A block comment without a line break between two tokens still separates them.
    const between = breaks === '' && /\S$/.test(out) && /^\S/.test(text.slice(end, end + 1));
    out += between ? ' ' : breaks;
    at = end;
  }
  return out + text.slice(at);
}

function isJSDocNode(node) {
  return node.kind >= ts.SyntaxKind.FirstJSDocNode && node.kind <= ts.SyntaxKind.LastJSDocNode;
}

/** Strips every .js file under `dir` in place; returns the bytes saved. */
export function stripTree(dir) {
  let saved = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) saved += stripTree(full);
    else if (entry.name.endsWith('.js')) {
      const text = readFileSync(full, 'utf8');
      const stripped = stripComments(text, full);
      writeFileSync(full, stripped);
      saved += text.length - stripped.length;
    }
  }
  return saved;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const dir = process.argv[2];
  if (!dir) throw new Error('usage: node scripts/strip-js-comments.mjs DIR');
  stripTree(dir);
}
