// Node names and paths (Zarr v3 core: "Node names"). A path is '/'-rooted; store keys drop the root.
import { floeError } from '../../errors.ts';

/** Throws INVALID_NAME unless `name` is a legal node name. */
export function validateNodeName(name: string): void {
  const why =
    name === '' ? 'must not be empty'
    : name.includes('/') ? 'must not contain "/"'
    : /^\.+$/.test(name) ? 'must not consist only of periods'
    : name.startsWith('__') ? 'must not start with the reserved prefix "__"'
    : name.includes('\u0000') ? 'must not contain NUL'
    : undefined;
  if (why) throw floeError('INVALID_NAME', `node name ${JSON.stringify(name)} ${why}`);
}

/** Normalises a user path ('a/b', '/a/b/', '') to '/a/b' or '/', validating every name. */
export function normalizePath(path: string): string {
  const names = path.split('/').filter((s) => s !== '');
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
