// A file read by byte ranges, for scanners that read a file's structure and never its data
// (virtual datasets). Local files now; an HTTP source with coalesced ranged requests is the same
// contract. Sources say how big the file is and when it last changed, which the virtual refs
// record so a file changed after the scan is detected when read.
import { open, type FileHandle } from 'node:fs/promises';
import { pathToFileURL } from 'node:url';
import { floeError } from '../errors.ts';
import { throwIfAborted } from './abort.ts';
import type { AbortOptions } from './storage/types.ts';

export interface ByteSource {
  /** The URL virtual refs record (`file:///abs/path`). */
  readonly url: string;
  /** How the file is named in messages. */
  readonly name: string;
  readonly size: number;
  /** Modification time, when the source knows it. */
  readonly lastModified: Date | null;
  /** `length` bytes at `offset`; fewer only at the end of the file. */
  read(offset: number, length: number, options?: AbortOptions): Promise<Uint8Array>;
  close(): Promise<void>;
}

/** A local file as a byte source; NOT_FOUND when it cannot be opened. */
export async function openLocalFile(file: string): Promise<ByteSource> {
  let handle: FileHandle;
  try {
    handle = await open(file, 'r');
  } catch (err) {
    throw floeError('NOT_FOUND', `cannot open ${file}: ${(err as Error).message}`, { where: file, cause: err });
  }
  const info = await handle.stat();
  if (!info.isFile()) {
    await handle.close();
    throw floeError('INVALID_ARGUMENT', `${file} is not a regular file`, { where: file });
  }
  return {
    url: pathToFileURL(file).href,
    name: file,
    size: info.size,
    lastModified: info.mtime,
    async read(offset, length, options) {
      const want = Math.max(0, Math.min(length, info.size - offset));
      const out = new Uint8Array(want);
      let done = 0;
      while (done < want) {
        throwIfAborted(options?.signal, file);
        const { bytesRead } = await handle.read(out, done, want - done, offset + done);
        if (bytesRead === 0) break;
        done += bytesRead;
      }
      return done === want ? out : out.subarray(0, done);
    },
    close: () => handle.close(),
  };
}
