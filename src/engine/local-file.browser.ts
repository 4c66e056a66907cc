// Local-file chunk reads in the browser build (replaces local-file.ts there). Only a store over
// local files offers localFile(), and the browser build has none, so these are never reached;
// they refuse rather than guess.
import type { LocalFileSpan } from './store.ts';
import { notInBrowser } from './storage/node-only.ts';

export function inFileBuffer(_bytes: ArrayBufferView): boolean {
  return false;
}

export function readLocalFile(span: LocalFileSpan, _maxBytes: number): Uint8Array | undefined {
  throw notInBrowser(`reading ${spanFile(span)}`);
}

export function readFileIntoViews(span: LocalFileSpan): 'done' | 'missing' | 'fallback' {
  throw notInBrowser(`reading ${spanFile(span)}`);
}

export async function readFileIntoViewsAsync(span: LocalFileSpan): Promise<'done' | 'missing' | 'fallback'> {
  throw notInBrowser(`reading ${spanFile(span)}`);
}

/** The span's file as a path, for messages. */
export function spanFile(span: LocalFileSpan): string {
  return `${span.root}/${span.key}`;
}
