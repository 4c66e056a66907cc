// The process the durability test runs under a file-size limit (`ulimit -f`), so a write past the
// limit fails midway (EFBIG) after part of its bytes reached the disk: a real mid-write failure.
// argv: root, durability, then either `puts <JSON [{ key, size, byte }]>` (storage puts, each
// value `size` bytes of `byte`) or `set <path> <value>` (a whole-array write through openStore).
// Prints one JSON line: what each put did, or what the set did.
import { openStore } from '../../src/engine/api.ts';
import { ZarrArray } from '../../src/engine/array.ts';
import { FsStorage, type Durability } from '../../src/engine/storage/fs.ts';
import { isFloeError } from '../../src/errors.ts';

const [root = '', durability = 'atomic', mode = '', ...rest] = process.argv.slice(2);

const outcome = (err: unknown) => ({ ok: false, code: isFloeError(err) ? err.code : String(err) });

if (mode === 'puts') {
  const storage = new FsStorage({ root, durability: durability as Durability });
  const results = [];
  for (const { key, size, byte } of JSON.parse(rest[0] ?? '[]') as { key: string; size: number; byte: number }[]) {
    results.push(await storage.put(key, new Uint8Array(size).fill(byte)).then(() => ({ ok: true }), outcome));
  }
  process.stdout.write(`${JSON.stringify(results)}\n`);
} else if (mode === 'set') {
  const array = await ZarrArray.open(openStore(root, { durability: durability as Durability }), rest[0]);
  const result = await array.set(undefined, Number(rest[1])).then(() => ({ ok: true }), outcome);
  process.stdout.write(`${JSON.stringify(result)}\n`);
} else {
  process.exit(2);
}
