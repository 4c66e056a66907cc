// What `floe init` may write into: nothing, or an empty directory / S3 prefix. A directory holding
// a Zarr store or any other files is refused (NOT_A_REPOSITORY, 'not-empty') before anything is
// written, unless the user said `--force`. A SQLite file is checked by the storage itself
// (src/engine/storage/sqlite-file.ts), which refuses another application's database.
import { lstatSync, readdirSync } from 'node:fs';
import { floeError } from '../../errors.ts';
import type { ObjectStorage } from '../../engine/storage/types.ts';
import type { StorageKind } from '../repository-location.ts';

/** Marker files that name what a directory is, checked in this order. */
const MARKERS: readonly (readonly [string, string])[] = [
  ['zarr.json', 'a Zarr v3 store (zarr.json)'],
  ['.zgroup', 'a Zarr v2 store (.zgroup)'],
  ['.zarray', 'a Zarr v2 array (.zarray)'],
  ['meta', 'a Zarr v1 array (meta)'],
];

/** Names listed in a refusal, so a huge directory gives a short message. */
const SHOWN_ENTRIES = 3;

/**
 * Refuses a location that holds anything (and no repository, which the caller checked first).
 * `file`: the directory's entries; `s3`: the first object under the prefix; `sqlite`: nothing here.
 */
export async function refuseNonEmptyTarget(location: string, kind: StorageKind, backend: ObjectStorage): Promise<void> {
  const found = kind === 'file' ? directoryContents(location) : kind === 's3' ? await firstObject(backend) : undefined;
  if (found === undefined) return;
  throw floeError('NOT_A_REPOSITORY',
    `${location} holds ${found} and no Floe repository; floe init writes only into an empty or new location. ` +
      'Pick another --repo, or pass --force to write a repository beside what is there',
    { where: location, details: { reason: 'not-empty', found } });
}

/** What a directory holds, as text; undefined when it is missing or empty. */
function directoryContents(dir: string): string | undefined {
  let entries: string[];
  try {
    if (!lstatSync(dir).isDirectory()) return 'a file where a directory was expected';
    entries = readdirSync(dir).sort();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw floeError('STORAGE_ERROR', `cannot read ${dir}: ${(err as Error).message}`, { where: dir, cause: err });
  }
  if (entries.length === 0) return undefined;
  const marker = MARKERS.find(([name]) => entries.includes(name));
  if (marker) return marker[1];
  const shown = entries.slice(0, SHOWN_ENTRIES).join(', ');
  return `${entries.length} ${entries.length === 1 ? 'entry' : 'entries'} (${shown}${entries.length > SHOWN_ENTRIES ? ', ...' : ''})`;
}

async function firstObject(backend: ObjectStorage): Promise<string | undefined> {
  for await (const object of backend.list('')) return `objects (${object.key}, ...)`;
  return undefined;
}
