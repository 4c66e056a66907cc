// Vitest globalSetup: the tests that run `floe` as a process (bin/floe.mjs) and the package
// tests run the compiled JS in dist/, so a run starts by building it when any source is newer
// than the build. `npm test` builds first anyway; this keeps `npx vitest run <file>` honest.
import { execFileSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const BUILT = path.join(root, 'dist/cli/process-main.js');

export default function setup(): void {
  const built = mtimeOrZero(BUILT);
  if (built > 0 && newestSource(path.join(root, 'src')) <= built) return;
  execFileSync(process.execPath, [path.join(root, 'node_modules/typescript/bin/tsc'), '-p', path.join(root, 'tsconfig.build.json')], { stdio: 'inherit' });
  // The same build as `npm run build`: the emitted JavaScript without comments.
  execFileSync(process.execPath, [path.join(root, 'scripts/strip-js-comments.mjs'), path.join(root, 'dist')], { stdio: 'inherit' });
  // ...and the browser build (dist/browser/: floe/browser's bundle).
  execFileSync(process.execPath, [path.join(root, 'scripts/build-browser.mjs')], { stdio: 'inherit' });
  // The viewer page `floe serve` answers at /ui/ (issue 34), on the same browser build.
  execFileSync(process.execPath, [path.join(root, 'scripts/build-viewer.mjs'), path.join(root, 'dist/viewer')], { stdio: 'inherit' });
}

function newestSource(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestSource(full) : statSync(full).mtimeMs);
  }
  return newest;
}

function mtimeOrZero(file: string): number {
  try {
    return statSync(file).mtimeMs;
  } catch {
    return 0;
  }
}
