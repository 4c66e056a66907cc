// A minimal read-only zarrita store over a directory, the way zarrita's own FileSystemStore
// (@zarrita/storage) reads: fs.promises.readFile for whole keys, open + read for ranges.
import { open, readFile } from 'node:fs/promises';
import path from 'node:path';

type Range = { offset: number; length: number } | { suffixLength: number };

export class FsReadStore {
  constructor(readonly root: string) {}

  private file(key: string): string {
    return path.join(this.root, key.startsWith('/') ? key.slice(1) : key);
  }

  async get(key: string): Promise<Uint8Array | undefined> {
    try {
      return await readFile(this.file(key));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
  }

  async getRange(key: string, range: Range): Promise<Uint8Array | undefined> {
    let fh;
    try {
      fh = await open(this.file(key), 'r');
      let position: number;
      let length: number;
      if ('suffixLength' in range) {
        const { size } = await fh.stat();
        length = Math.min(range.suffixLength, size);
        position = size - length;
      } else {
        ({ offset: position, length } = range);
      }
      const data = Buffer.alloc(length);
      await fh.read(data, 0, length, position);
      return data;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    } finally {
      await fh?.close();
    }
  }
}
