// Loading the packages Floe can do without. Backends' clients (the S3 SDK, better-sqlite3) and
// the test oracles' libraries (fast-check, zarrita, the reference Icechunk) are optional peer
// dependencies: a user installs only what they use, and Floe loads each one on first use. When it
// is missing, or installed but unable to load (a native module never built), the caller gets a
// MISSING_DEPENDENCY error that names the package and the install command.
// Node builtins and CommonJS packages that code shared with the browser build needs only on some
// paths (a native codec, node:crypto for one checksum) load here too, at their point of use, through
// loadPackage: the browser build replaces this module (optional-dependency.browser.ts), so those
// paths refuse there with UNSUPPORTED and the bundle names no Node module.
import { createRequire } from 'node:module';
import { floeError, type FloeError } from './errors.ts';

const requireFromFloe = createRequire(import.meta.url);

/** Synchronously loads a CommonJS package (better-sqlite3, zstd-napi) for `purpose`. */
export function requireOptional<T>(pkg: string, purpose: string): T {
  try {
    return requireFromFloe(pkg) as T;
  } catch (err) {
    throw missingDependency(pkg, purpose, err);
  }
}

/** Synchronously loads a Node builtin (`node:crypto`) or a CommonJS package; throws its own error when it does not load. */
export function loadPackage<T>(id: string): T {
  return requireFromFloe(id) as T;
}

/** Drops a CommonJS package from the module cache: the next loadPackage instantiates it afresh. */
export function unloadPackage(id: string): void {
  delete requireFromFloe.cache[requireFromFloe.resolve(id)];
}

/** Loads an ES module package through `load` (a literal `import(...)`, so its types flow). */
export async function importOptional<T>(pkg: string, purpose: string, load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (err) {
    throw missingDependency(pkg, purpose, err);
  }
}

export function missingDependency(pkg: string, purpose: string, cause: unknown): FloeError {
  const reason = isNotInstalled(cause, pkg) ? 'is not installed' : `did not load (${firstLine(cause)})`;
  return floeError('MISSING_DEPENDENCY', `${purpose} needs the package ${pkg}, which ${reason}; install it with \`npm install ${pkg}\``, {
    cause,
    details: { package: pkg },
  });
}

function isNotInstalled(err: unknown, pkg: string): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') && String((err as Error).message).includes(pkg);
}

function firstLine(err: unknown): string {
  return String(err instanceof Error ? err.message : err).split('\n')[0] ?? '';
}
