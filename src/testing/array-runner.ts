// Runs one array case (metadata + reads and writes) on each adapter, in a store of its own, with the
// dense model as the oracle. An adapter that cannot write the case (its documented limits) reads
// what the first adapter able to write it wrote: that is the cross-implementation check.
import { MemoryStorage } from '../engine/storage/memory.ts';
import { StorageStore } from '../engine/store.ts';
import type { ArrayCase } from './arbitraries/array-metadata.ts';
import type { ArrayOp } from './arbitraries/array-ops.ts';
import { randomElements } from './arbitraries/chunk-data.ts';
import { describeSelection } from './arbitraries/selections.ts';
import type { ArrayAdapter, ArrayHandle } from './adapters/types.ts';
import { ModelArray, resolveOrUndefined, resolveSelection, resultShapeOf, type ModelItem } from './model/array-model.ts';
import type { Mismatch } from './repository-runner.ts';

const same = (a: unknown, b: unknown): boolean =>
  JSON.stringify(a, (_, v: unknown) => (v instanceof Uint8Array ? Array.from(v) : v)) === JSON.stringify(b, (_, v: unknown) => (v instanceof Uint8Array ? Array.from(v) : v));

/**
 * Runs one array case on each adapter with the dense model as the oracle; an adapter that cannot
 * write the case reads what another wrote. Returns the first mismatch, or `undefined`.
 */
export async function checkArrayCase(adapters: readonly ArrayAdapter[], c: ArrayCase, ops: readonly ArrayOp[]): Promise<Mismatch | undefined> {
  for (const reader of adapters) {
    const writer = reader.canWrite(c) ? reader : adapters.find((a) => a.canWrite(c));
    if (!writer) continue;
    const label = writer === reader ? reader.name : `${reader.name} reading what ${writer.name} wrote`;
    const store = new StorageStore(new MemoryStorage());
    let w: ArrayHandle;
    try {
      w = await writer.createArray(store, '/arr', c);
    } catch (err) {
      return { adapter: writer.name, step: -1, what: 'create the array', expected: 'ok', actual: String(err) };
    }
    const model = new ModelArray(c.shape, c.dtype.memBytes, c.fill.memory);
    const read = async (step: number, selection: readonly ModelItem[]): Promise<Mismatch | undefined> => {
      const dims = resolveSelection(selection, c.shape);
      const expected = { shape: resultShapeOf(dims), values: model.read(dims) };
      let actual: unknown;
      try {
        // A reader other than the writer opens the array afresh, as a separate program would.
        const r = writer === reader ? w : await reader.openArray(store, '/arr');
        actual = await r.read(selection);
      } catch (err) {
        actual = `error: ${String(err)}`;
      }
      return same(actual, expected) ? undefined : { adapter: label, step, what: `read ${describeSelection(selection)}`, expected, actual };
    };
    for (const [step, op] of ops.entries()) {
      const dims = resolveOrUndefined(op.selection, c.shape);
      if (!dims) continue; // refusing bad selections is each API's own business, not conformance
      if (op.kind === 'read') {
        const m = await read(step, op.selection);
        if (m) return m;
        continue;
      }
      const values = randomElements(c.dtype, c.fill.memory, resultShapeOf(dims).reduce((a, b) => a * b, 1), op.seed);
      try {
        await w.write(op.selection, values);
      } catch (err) {
        return { adapter: writer.name, step, what: `write ${describeSelection(op.selection)}`, expected: 'ok', actual: String(err) };
      }
      model.write(dims, values, false);
    }
    const m = await read(-1, []);
    if (m) return m;
  }
  return undefined;
}
