import type { BuildOptions, BuildResult, Plugin } from 'esbuild';

export const ROOT: string;
/** The browser build's replacement for a source file: `x.browser.ts` beside `x.ts`, when there is one. */
export function browserSibling(file: string): string | undefined;
/** An esbuild plugin resolving relative imports of `x.ts` to `x.browser.ts` where it exists. */
export const browserSiblings: Plugin;
/** Modules the browser build imports statically where the source imports them on first use (a page takes them anyway). */
export const EAGER_IN_BROWSER: readonly string[];
/** An esbuild plugin keeping the browser build's core in a few chunks (and applying EAGER_IN_BROWSER). */
export const coreChunks: Plugin;
/** esbuild options for the browser build of src/browser.ts, with `overrides`. */
export function browserBuildOptions(overrides?: BuildOptions): BuildOptions;
/** Builds dist/browser/floe.js (or into `outdir`). */
export function buildBrowser(outdir?: string): Promise<BuildResult<{ metafile: true }>>;
