// A TypeScript worker bundled with esbuild for tests that run it in child processes. The bundle goes
// inside the project (node_modules/.cache/<name>/<pid>) so its bare imports (zstd-napi, ...) resolve
// from node_modules, one directory per test process so parallel runs do not share it.
import { mkdirSync, rmdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const projectRoot = path.join(path.dirname(fileURLToPath(import.meta.url)), '../..');

export interface BundledWorker {
  /** Path of the built .mjs, valid after `build()`. */
  readonly path: string;
  build(): Promise<void>;
  /** Removes the bundle, and the cache directory when no other run's bundle is left in it. */
  remove(): void;
}

/** `source`: the worker's .ts file; `cacheName`: the directory under node_modules/.cache. */
export function bundledWorker(source: string, cacheName: string): BundledWorker {
  const dir = path.join(projectRoot, 'node_modules/.cache', cacheName, String(process.pid));
  const out = path.join(dir, `${path.basename(source, '.ts')}.mjs`);
  return {
    path: out,
    async build() {
      mkdirSync(dir, { recursive: true });
      await build({ entryPoints: [source], bundle: true, platform: 'node', format: 'esm', packages: 'external', outfile: out, logLevel: 'silent' });
    },
    remove() {
      rmSync(dir, { recursive: true, force: true });
      try {
        rmdirSync(path.dirname(dir)); // only if no other run's bundle is still there
      } catch {
        // not empty: another test run is using it
      }
    },
  };
}
