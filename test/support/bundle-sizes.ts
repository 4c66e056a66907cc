// Gzipped sizes of an esbuild build's outputs (issue 31's size budget): what a page loads with an
// entry (the entry and the chunks it imports statically, transitively) and what each first-use
// chunk adds beyond that.
import { gzipSync } from 'node:zlib';
import path from 'node:path';
import type { Metafile, OutputFile } from 'esbuild';

export interface SizedOutput {
  /** Output path relative to the build's outdir. */
  readonly file: string;
  readonly bytes: number;
  readonly gzipBytes: number;
  /** The source module a first-use chunk was split at (its `import()` target), when it is one. */
  readonly entryPoint?: string;
}

export interface BuildSizes {
  readonly outputs: ReadonlyMap<string, SizedOutput>;
  /** Outputs loaded with `entry` (itself included): its static imports, transitively. */
  closure(entry: string): Set<string>;
  /** Sum of gzipped bytes of `files`. */
  gzip(files: Iterable<string>): number;
}

/** Sizes of a build written with `write: false` (outputFiles) and a metafile, relative to `outdir`. */
export function buildSizes(outdir: string, outputFiles: readonly OutputFile[], metafile: Metafile, root: string): BuildSizes {
  const texts = new Map(outputFiles.map((f) => [path.relative(outdir, f.path), f.contents]));
  const byMeta = new Map(Object.entries(metafile.outputs).map(([key, value]) => [path.relative(outdir, path.resolve(root, key)), value]));
  const outputs = new Map<string, SizedOutput>();
  for (const [file, contents] of texts) {
    if (!file.endsWith('.js')) continue;
    const entryPoint = byMeta.get(file)?.entryPoint;
    outputs.set(file, { file, bytes: contents.length, gzipBytes: gzipSync(contents, { level: 9 }).length, ...(entryPoint ? { entryPoint } : {}) });
  }
  const closure = (entry: string): Set<string> => {
    const seen = new Set<string>();
    const visit = (file: string): void => {
      if (seen.has(file)) return;
      seen.add(file);
      for (const i of byMeta.get(file)?.imports ?? []) {
        if (i.kind === 'import-statement') visit(path.relative(outdir, path.resolve(root, i.path)));
      }
    };
    visit(entry);
    return seen;
  };
  const gzip = (files: Iterable<string>): number => [...files].reduce((n, f) => n + (outputs.get(f)?.gzipBytes ?? 0), 0);
  return { outputs, closure, gzip };
}
