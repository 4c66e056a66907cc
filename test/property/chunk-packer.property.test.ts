// Model-based test of the chunk packer: random writes of random sizes, reads, flushes and
// discards over a storage that fails some puts. The model is a list of (placement, bytes):
// every placement reads back its bytes, from memory or storage, and after a successful flush
// every one of them is in storage.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { withFaults } from '../../src/engine/storage/faults.ts';
import { MemoryStorage } from '../../src/engine/storage/memory.ts';
import { chunkKey } from '../../src/format/icechunk/keys.ts';
import { ChunkPacker, type ChunkPlacement } from '../../src/txn/chunk-packer.ts';
import { RepoObjects } from '../../src/txn/objects.ts';

type Op = { kind: 'write'; size: number; fill: number } | { kind: 'read'; pick: number } | { kind: 'flush' } | { kind: 'discard' };

const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('write' as const), size: fc.nat(160), fill: fc.nat(255) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('read' as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'flush' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'discard' as const }) },
);

const bytesOf = (size: number, fill: number) => Uint8Array.from({ length: size }, (_, i) => (fill + i) & 0xff);

describe('ChunkPacker', () => {
  it('every placement reads back its bytes; after flush all are stored', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 60 }), fc.integer({ min: 0, max: 200 }), fc.integer({ min: 1, max: 400 }), fc.nat(4), async (ops, maxChunk, packSize, failEvery) => {
        const backend = new MemoryStorage();
        let puts = 0;
        const storage = withFaults(backend, (call) => (call.operation === 'put' && failEvery > 0 && ++puts % (failEvery + 1) === 0 ? { kind: 'fail-before' } : undefined));
        const packBytes = Math.max(maxChunk, packSize);
        const packer = new ChunkPacker(new RepoObjects(storage), { maxChunkBytes: maxChunk, packBytes });
        let model: { at: ChunkPlacement; bytes: Uint8Array }[] = [];
        const read = (at: ChunkPlacement) => packer.pending(at.chunkId, at) ?? readStored(backend, at);
        for (const o of ops) {
          if (o.kind === 'write') {
            const bytes = bytesOf(o.size, o.fill);
            try {
              model.push({ at: await packer.write(bytes), bytes });
            } catch (err) {
              expect(String(err)).toMatch(/injected fault/); // the write is not recorded; nothing else changes
            }
          } else if (o.kind === 'read' && model.length > 0) {
            const { at, bytes } = model[o.pick % model.length]!;
            expect(await read(at)).toEqual(bytes);
          } else if (o.kind === 'flush') {
            try {
              await packer.flush();
            } catch (err) {
              expect(String(err)).toMatch(/injected fault/);
            }
          } else if (o.kind === 'discard') {
            packer.clear();
            // Chunks already stored stay readable; unwritten ones are gone, as the session's refs are.
            const stored = [];
            for (const m of model) if ((await readStored(backend, m.at)) !== undefined) stored.push(m);
            model = stored;
          }
        }
        for (let attempt = 0; ; attempt++) {
          try {
            await packer.flush();
            break;
          } catch (err) {
            if (attempt > 20) throw err;
          }
        }
        for (const { at, bytes } of model) {
          expect(at.offset + at.length).toBeLessThanOrEqual(Math.max(packBytes, at.length));
          expect(await readStored(backend, at)).toEqual(bytes);
        }
        expect(packer.unwrittenPacks()).toEqual([]);
      }),
      { numRuns: 300 },
    );
  });
});

async function readStored(backend: MemoryStorage, at: ChunkPlacement): Promise<Uint8Array | undefined> {
  const got = await backend.get(chunkKey(at.chunkId), { offset: at.offset, length: at.length });
  return got?.bytes;
}
