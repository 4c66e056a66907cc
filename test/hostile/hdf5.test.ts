// Hostile HDF5 input to the scanner: files h5py wrote (test/support/hdf5-peer.py, 'hostile'),
// damaged here: truncated, a corrupt v1 B-tree node, fixed array and heaps, a chunk address past
// the end, a declared size that overflows, a group that contains itself, an object header whose
// continuation points back at itself (in the latest format the structures' checksums refuse the
// change first; sealed again, the deeper check does). Each is a CORRUPT_OBJECT naming the file and the object,
// quickly and in bounded memory, and virtualize writes nothing. A fast-check property mutates
// and truncates the files at random: only FloeErrors, never a hang.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { pathToFileURL } from 'node:url';
import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { ByteSource } from '../../src/engine/byte-source.ts';
import { isFloeError, type FloeError } from '../../src/errors.ts';
import { jenkinsLookup3 } from '../../src/format/codecs/numcodecs/jenkins-lookup3.ts';
import { planHdf5 } from '../../src/txn/hdf5-scan.ts';
import { Repository, Storage } from '../../src/txn/index.ts';
import { virtualize } from '../../src/txn/virtualize.ts';
import { describeWithVirtualPeer, HDF5_PEER, runVirtualPeer } from '../support/python-virtual.ts';

const RUNS = Number(process.env.FLOE_HDF5_PROPERTY_RUNS ?? 300);

interface Hostile {
  earliest: { path: string; chunk_offsets: number[]; continued: string; continued_header: number };
  latest: { path: string; chunk_offsets: number[]; continued: string; continued_header: number };
  cycle: string;
  names: string;
}

let dir: string;
let peer: Hostile;

function memorySource(bytes: Uint8Array, name = 'mem.h5'): ByteSource {
  return {
    url: `file:///${name}`,
    name,
    size: bytes.length,
    lastModified: null,
    read: async (offset, length) => bytes.slice(offset, Math.min(bytes.length, offset + length)),
    close: async () => {},
  };
}

async function scanError(bytes: Uint8Array, name = 'damaged.h5'): Promise<FloeError> {
  const started = performance.now();
  const err = await planHdf5(memorySource(bytes, name), name, {}).then(() => undefined, (e: unknown) => e);
  expect(performance.now() - started).toBeLessThan(5000);
  if (!isFloeError(err)) throw new Error(`expected a FloeError, got ${err === undefined ? 'success' : String(err)}`);
  return err;
}

const indexOf = (bytes: Uint8Array, text: string, from = 0) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).indexOf(text, from, 'latin1');
const le64 = (bytes: Uint8Array, at: number, value: number) => new DataView(bytes.buffer, bytes.byteOffset).setBigUint64(at, BigInt(value), true);
function findLe64(bytes: Uint8Array, value: number): number[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.length);
  const out: number[] = [];
  for (let i = 0; i + 8 <= bytes.length; i++) if (view.getBigUint64(i, true) === BigInt(value)) out.push(i);
  return out;
}

const read = (p: string) => new Uint8Array(readFileSync(p));

/** Writes the Jenkins lookup3 checksum of bytes [start, end) at end: a damaged structure a writer sealed as valid. */
function reseal(bytes: Uint8Array, start: number, end: number): void {
  new DataView(bytes.buffer, bytes.byteOffset).setUint32(end, jenkinsLookup3(bytes.subarray(start, end), 0), true);
}

/** Where the checksum of the version-2 object header at `at` (its first chunk) sits. */
function headerChecksumAt(bytes: Uint8Array, at: number): number {
  const flags = bytes[at + 5] as number;
  const skip = 6 + ((flags & 0x20) !== 0 ? 16 : 0) + ((flags & 0x10) !== 0 ? 4 : 0);
  const width = 1 << (flags & 3);
  let size = 0;
  for (let i = width - 1; i >= 0; i--) size = size * 256 + (bytes[at + skip + i] as number);
  return at + skip + width + size;
}

/** Where the checksum of the (unpaged) fixed array data block sits, from its header (8-byte lengths and addresses). */
function fixedArrayChecksumAt(bytes: Uint8Array): { start: number; end: number } {
  const header = indexOf(bytes, 'FAHD');
  const entrySize = bytes[header + 6] as number;
  const count = Number(new DataView(bytes.buffer, bytes.byteOffset).getBigUint64(header + 8, true));
  const start = indexOf(bytes, 'FADB');
  return { start, end: start + 6 + 8 + count * entrySize };
}

describeWithVirtualPeer('hostile HDF5 files', () => {
  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'floe-hdf5-hostile-'));
    peer = runVirtualPeer(['hostile', dir], HDF5_PEER);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('the undamaged files scan (the baseline the cases below break)', async () => {
    for (const p of [peer.earliest.path, peer.latest.path]) {
      const plan = await planHdf5(memorySource(read(p)), p, {});
      expect(plan.arrays.map((a) => a.variable).sort()).toEqual(['a/small', 'data', 'huge']);
    }
  });

  it('a truncated file is CORRUPT_OBJECT naming the file', async () => {
    for (const p of [peer.earliest.path, peer.latest.path]) {
      const bytes = read(p);
      for (const keep of [0, 7, 40, 300, Math.floor(bytes.length / 2), bytes.length - 10]) {
        const err = await scanError(bytes.slice(0, keep), 'cut.h5');
        expect(err.code, `${p} cut at ${keep}`).toBe('CORRUPT_OBJECT');
        expect(err.message).toContain('HDF5 file cut.h5');
      }
    }
  });

  it('a corrupt B-tree node, fixed array or heap is CORRUPT_OBJECT naming the object', async () => {
    const early = read(peer.earliest.path);
    const tree = indexOf(early, 'TREE');
    const b1 = early.slice();
    b1[tree + 4] = 7; // node type
    expect((await scanError(b1)).message).toMatch(/B-tree node of type 7/);
    const b2 = early.slice();
    b2[tree + 6] = 0xff; // entries used
    b2[tree + 7] = 0xff;
    expect((await scanError(b2)).code).toBe('CORRUPT_OBJECT');
    const heap = indexOf(early, 'HEAP');
    const h = early.slice();
    le64(h, heap + 8, 2 ** 40); // data segment size
    const heapErr = await scanError(h);
    expect(isFloeError(heapErr, 'CORRUPT_OBJECT') && heapErr.details.file).toBe('damaged.h5');
    const late = read(peer.latest.path);
    const fa = late.slice();
    le64(fa, indexOf(late, 'FAHD') + 8, 2 ** 45); // entries
    const faErr = await scanError(fa);
    expect(isFloeError(faErr, 'CORRUPT_OBJECT') && faErr.details.variable).toBe('/data');
    const fh = late.slice();
    fh.set([0x58, 0x58, 0x58, 0x58], indexOf(late, 'FHDB'));
    expect((await scanError(fh)).message).toContain('fractal heap direct block');
  });

  it('a chunk past the end of the file and a declared size that overflows', async () => {
    for (const which of ['earliest', 'latest'] as const) {
      const bytes = read(peer[which].path);
      const past = bytes.slice();
      const first = peer[which].chunk_offsets[0] as number;
      const at = findLe64(bytes, first);
      expect(at.length, which).toBeGreaterThan(0);
      for (const i of at) le64(past, i, bytes.length + 4096);
      if (which === 'latest') {
        // The fixed array's checksum catches the change; sealed again, the address itself is refused.
        expect((await scanError(past)).message).toContain('checksum of the fixed array data block does not match');
        const block = fixedArrayChecksumAt(past);
        reseal(past, block.start, block.end);
      }
      const err = await scanError(past);
      expect(err.message).toMatch(/past the end of the file/);
      expect(isFloeError(err, 'CORRUPT_OBJECT') && err.details.variable).toBe('/data');
      const over = bytes.slice();
      const patched = [98765, 87654].flatMap((n) => findLe64(bytes, n));
      for (const i of patched) le64(over, i, 2 ** 40);
      if (which === 'latest') {
        expect((await scanError(over)).message).toContain('checksum of the object header does not match');
        for (const header of new Set(patched.map((i) => Buffer.from(over.buffer, over.byteOffset, over.length).lastIndexOf('OHDR', i, 'latin1')))) reseal(over, header, headerChecksumAt(over, header));
      }
      const overflow = await scanError(over);
      expect(overflow.message).toContain('declared size overflows');
      expect(isFloeError(overflow, 'CORRUPT_OBJECT') && overflow.details.variable).toBe('/huge');
    }
  });

  it('a group that contains itself', async () => {
    const err = await scanError(read(peer.cycle), 'cycle.h5');
    expect(err.message).toContain('contains itself');
    expect(isFloeError(err, 'CORRUPT_OBJECT') && err.details.variable).toBe('/a/loop');
  });

  it('a group whose name is not a Zarr node name is left out, its datasets skipped with the reason', async () => {
    const plan = await planHdf5(memorySource(read(peer.names)), 'names.h5', {});
    expect(plan.arrays.map((a) => a.variable)).toEqual(['ok']);
    expect(plan.groups.map((g) => g.relativePath)).toEqual(['']);
    expect(plan.skipped).toEqual([{ source: 'names.h5', variable: '__reserved/x', reason: expect.stringContaining('reserved prefix') }]);
  });

  it('an object header whose continuation points back at itself', async () => {
    // v1 (earliest): messages start 16 bytes after the header; v2 (latest): the OHDR itself.
    for (const which of ['earliest', 'latest'] as const) {
      const bytes = read(peer[which].path);
      const header = peer[which].continued_header;
      const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.length);
      const target = which === 'earliest' ? header + 16 : header;
      let patched = 0;
      const copy = bytes.slice();
      for (let i = header; i < header + 4096; i++) {
        const continuation = which === 'earliest'
          ? (i - header) % 8 === 0 && view.getUint16(i, true) === 0x10 && view.getUint16(i + 2, true) === 16
          : bytes[i] === 0x10 && view.getUint16(i + 1, true) === 16;
        if (!continuation) continue;
        const addrAt = i + 8 - (which === 'earliest' ? 0 : 4);
        const addr = Number(view.getBigUint64(addrAt, true));
        const sig = which === 'earliest' ? undefined : Buffer.from(bytes.subarray(addr, addr + 4)).toString('latin1');
        if (addr >= bytes.length || (sig !== undefined && sig !== 'OCHK')) continue;
        le64(copy, addrAt, target);
        if (which === 'latest') {
          expect((await scanError(copy)).message).toContain('checksum of the object header does not match');
          reseal(copy, header, headerChecksumAt(copy, header));
        }
        patched++;
        break;
      }
      expect(patched, which).toBe(1);
      const err = await scanError(copy);
      expect(err.message, which).toContain('reached twice');
      expect(isFloeError(err, 'CORRUPT_OBJECT') && err.details.variable).toBe(peer[which].continued);
    }
  });

  it('virtualize refuses a damaged file and writes nothing', async () => {
    const file = path.join(dir, 'cut.h5');
    const bytes = read(peer.latest.path);
    writeFileSync(file, bytes.slice(0, bytes.length - 100));
    const prefix = pathToFileURL(dir).href + '/';
    const repo = await Repository.create(Storage.newInMemory(), { virtualChunkContainers: { [prefix]: { urlPrefix: prefix, store: { type: 'LocalFileSystem', field0: dir } } } }, 2, { [prefix]: null });
    const session = await repo.writableSession('main');
    const err = await virtualize(session, [file]).then(() => undefined, (e: unknown) => e);
    expect(isFloeError(err, 'CORRUPT_OBJECT') && err.message).toContain(file);
    expect(session.hasUncommittedChanges).toBe(false);
  });

  it('random mutations and truncations throw only FloeErrors, quickly', async () => {
    const files = [read(peer.earliest.path), read(peer.latest.path)];
    await fc.assert(
      fc.asyncProperty(
        fc.nat({ max: 1 }),
        fc.array(fc.record({ at: fc.nat(), value: fc.integer({ min: 0, max: 255 }) }), { minLength: 1, maxLength: 8 }),
        fc.option(fc.nat(), { nil: undefined }),
        async (which, edits, cut) => {
          const base = files[which] as Uint8Array;
          const bytes = base.slice(0, cut === undefined ? base.length : cut % base.length);
          for (const e of edits) if (bytes.length > 0) bytes[e.at % bytes.length] = e.value;
          const started = performance.now();
          try {
            await planHdf5(memorySource(bytes), 'mutant.h5', {});
          } catch (err) {
            if (!isFloeError(err)) throw err;
          }
          expect(performance.now() - started).toBeLessThan(3000);
        },
      ),
      { numRuns: RUNS },
    );
  });
});
