// Optional packages in the browser build (replaces optional-dependency.ts there): ES modules load
// through the caller's import(), which the bundle resolves; Node builtins and CommonJS packages
// (better-sqlite3, native codecs) have no browser form and refuse with UNSUPPORTED.
import { floeError, type FloeError } from './errors.ts';

/** CommonJS packages are not in the browser build. */
export function requireOptional<T>(pkg: string, purpose: string): T {
  throw floeError('UNSUPPORTED', `${purpose} needs the package ${pkg}, which the browser build leaves out`, { details: { reason: 'browser-build' } });
}

/** Node builtins and CommonJS packages are not in the browser build: their callers fall back or refuse. */
export function loadPackage<T>(id: string): T {
  throw floeError('UNSUPPORTED', `${id} is not in the browser build`, { details: { reason: 'browser-build' } });
}

/** Nothing to drop: loadPackage loads nothing here. */
export function unloadPackage(_id: string): void {}

/** Loads an ES module package through `load` (a literal `import(...)`). */
export async function importOptional<T>(pkg: string, purpose: string, load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (err) {
    throw missingDependency(pkg, purpose, err);
  }
}

export function missingDependency(pkg: string, purpose: string, cause: unknown): FloeError {
  return floeError('MISSING_DEPENDENCY', `${purpose} needs the package ${pkg}, which did not load in this page`, { cause, details: { package: pkg } });
}
