// Types of strip-js-comments.mjs, for its test (the script runs under plain node at build time).
/** `text` (a JavaScript module) without comments; each comment leaves only its line breaks. */
export declare function stripComments(text: string, fileName?: string): string;
/** Strips every .js file under `dir` in place; returns the bytes saved. */
export declare function stripTree(dir: string): number;
