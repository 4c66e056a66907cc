// V8's collector as a function, for memory V8 does not watch. A SharedArrayBuffer's memory is
// freed only once every thread's wrapper of it is collected, and V8 (Node 20) does not count
// shared memory toward the allocation that triggers a collection: a thread that allocates little
// JavaScript keeps dropped shared buffers resident (measured: 10 GiB after ten 1 GiB buffers,
// against 0.04 GiB for ordinary ArrayBuffers). Floe's decode pool fills results in shared memory,
// so it asks for a collection itself (engine/shared-results.ts, engine/worker-port.ts).

type Collector = () => void;

/** The parts of node:v8 and node:vm used here (no import: this module also runs in browsers). */
interface V8Flags {
  setFlagsFromString(flags: string): void;
}
interface VmContexts {
  runInNewContext(code: string): unknown;
}

let found: Collector | null | undefined;

/** A full collection of this thread's heap; undefined where the host offers none (browsers, Node < 20.16). */
export function heapCollector(): Collector | undefined {
  if (found === undefined) found = findCollector() ?? null;
  return found ?? undefined;
}

/**
 * The global `gc` when the process runs with --expose-gc; else one taken from a fresh context
 * created with that flag on for the moment (V8 flags are process-wide, so it is turned back off).
 */
function findCollector(): Collector | undefined {
  const exposed = (globalThis as { gc?: unknown }).gc;
  if (typeof exposed === 'function') return exposed as Collector;
  const load = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process?.getBuiltinModule;
  if (!load) return undefined;
  try {
    const v8 = load('node:v8') as V8Flags;
    const vm = load('node:vm') as VmContexts;
    v8.setFlagsFromString('--expose-gc');
    try {
      const collect = vm.runInNewContext('gc');
      return typeof collect === 'function' ? (collect as Collector) : undefined;
    } finally {
      v8.setFlagsFromString('--no-expose-gc');
    }
  } catch {
    return undefined;
  }
}
