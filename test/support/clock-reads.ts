// Where a source tree reads the wall clock directly: `Date.now()` calls and argument-less
// `new Date()`, found with the TypeScript compiler API (so comments and strings never count).
// Floe reads time only through an injected Clock (src/engine/storage/clock.ts).
import path from 'node:path';
import ts from 'typescript';
import type { SourceTree } from './import-graph.ts';

/** One direct read: `file:line text`. */
export function wallClockReads(tree: SourceTree): string[] {
  const found: string[] = [];
  for (const file of tree.files) {
    const text = tree.host.readFile(path.join(tree.root, file)) ?? '';
    const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
    const visit = (node: ts.Node): void => {
      if (isDateNowCall(node) || isBareNewDate(node)) {
        const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
        found.push(`${file}:${line} ${node.getText(source)}`);
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return found;
}

function isDateNowCall(node: ts.Node): boolean {
  return ts.isCallExpression(node)
    && ts.isPropertyAccessExpression(node.expression)
    && node.expression.name.text === 'now'
    && ts.isIdentifier(node.expression.expression)
    && node.expression.expression.text === 'Date';
}

function isBareNewDate(node: ts.Node): boolean {
  return ts.isNewExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === 'Date' && (node.arguments?.length ?? 0) === 0;
}
