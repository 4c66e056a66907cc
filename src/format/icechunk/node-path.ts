// Node paths as the spec defines them: absolute, '/'-separated, canonical. Sorted
// component-wise (/a < /a/b < /ab < /b), which is not raw string order.
import { floeError } from '../../errors.ts';
import { compareUtf8 } from './metadata-value.ts';

export function isValidNodePath(path: string): boolean {
  if (path === '/') return true;
  if (!path.startsWith('/') || path.endsWith('/')) return false;
  return path
    .slice(1)
    .split('/')
    .every((segment) => segment !== '' && segment !== '.' && segment !== '..');
}

export function checkNodePath(path: string, where?: string): string {
  if (!isValidNodePath(path)) {
    throw floeError('CORRUPT_OBJECT', `'${path}' is not a canonical absolute node path`, { where });
  }
  return path;
}

export function pathSegments(path: string): string[] {
  return path === '/' ? [] : path.slice(1).split('/');
}

/** Component-wise order: split on '/', compare segments in UTF-8 byte order. */
export function compareNodePaths(a: string, b: string): number {
  if (a === b) return 0;
  const x = pathSegments(a);
  const y = pathSegments(b);
  // Segment by segment; on a common prefix the path with fewer segments comes first.
  for (const [i, segment] of x.entries()) {
    const other = y[i];
    if (other === undefined) return 1;
    const d = compareUtf8(segment, other);
    if (d !== 0) return d;
  }
  return x.length - y.length;
}
