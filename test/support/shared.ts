// Locates ../shared (the conformance data other implementations wrote). Tests fail, not skip,
// when it is missing: CI always has it beside the clone.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export const SHARED_DIR = process.env.FLOE_SHARED_DIR ?? path.resolve(projectRoot, '../shared');

/** Absolute path of a file under ../shared/conformance; throws if it is not there. */
export function conformancePath(...parts: string[]): string {
  const p = path.join(SHARED_DIR, 'conformance', ...parts);
  if (!existsSync(p)) {
    throw new Error(`conformance data missing: ${p} (expected ../shared beside the project checkout)`);
  }
  return p;
}
