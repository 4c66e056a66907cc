// Node names and paths (Zarr v3 core: "Node names"). A path is '/'-rooted; store keys drop the root.
import { requireString } from '../arguments.ts';
import { floeError } from '../../errors.ts';
import { limitExceeded, MAX_NODE_NAME_BYTES, MAX_PATH_DEPTH } from '../limits.ts';
import { utf8Length } from '../../platform/host.ts';

/** Throws INVALID_NAME unless `name` is a legal node name (at most MAX_NODE_NAME_BYTES of UTF-8). */
export function validateNodeName(name: string): void {
  const why =
    name === '' ? 'must not be empty'
    : name.includes('/') ? 'must not contain "/"'
    : /^\.+$/.test(name) ? 'must not consist only of periods'
    : name.startsWith('__') ? 'must not start with the reserved prefix "__"'
    : name.includes('\u0000') ? 'must not contain NUL'
    : undefined;
  if (why) throw floeError('INVALID_NAME', `node name ${JSON.stringify(name)} ${why}`);
  // Only long names are measured: UTF-8 takes at most 3 bytes per UTF-16 unit.
  if (name.length * 3 > MAX_NODE_NAME_BYTES && utf8Length(name) > MAX_NODE_NAME_BYTES) {
    const shown = `${JSON.stringify(name.slice(0, 40))}… (${utf8Length(name)} bytes)`;
    throw floeError('INVALID_NAME', `node name ${shown} is longer than ${MAX_NODE_NAME_BYTES} bytes of UTF-8, what local filesystems allow; shorten it`, {
      details: { rule: 'too-long' },
    });
  }
}

/**
 * Normalises a user path ('a/b', '/a/b/', '') to '/a/b' or '/', validating every name; a path of
 * more than MAX_PATH_DEPTH names is LIMIT_EXCEEDED.
 */
export function normalizePath(path: string): string {
  requireString(path, 'a node path');
  const names = path.split('/').filter((s) => s !== '');
  if (names.length > MAX_PATH_DEPTH) {
    throw limitExceeded('path-depth', MAX_PATH_DEPTH, `a node path of ${names.length} names is deeper than the maximum of ${MAX_PATH_DEPTH}; use a flatter hierarchy`, { actual: names.length, where: `${path.slice(0, 200)}${path.length > 200 ? '…' : ''}` });
  }
  names.forEach(validateNodeName);
  return '/' + names.join('/');
}

/** The store-key prefix of a node: '' for the root, 'a/b/' otherwise. */
export function keyPrefix(path: string): string {
  const p = normalizePath(path);
  return p === '/' ? '' : p.slice(1) + '/';
}

export function metadataKey(path: string): string {
  return keyPrefix(path) + 'zarr.json';
}

export function joinPath(parent: string, name: string): string {
  validateNodeName(name);
  const p = normalizePath(parent);
  return p === '/' ? `/${name}` : `${p}/${name}`;
}

export function parentPath(path: string): string {
  const p = normalizePath(path);
  const i = p.lastIndexOf('/');
  return i <= 0 ? '/' : p.slice(0, i);
}

export function baseName(path: string): string {
  const p = normalizePath(path);
  return p.slice(p.lastIndexOf('/') + 1);
}
