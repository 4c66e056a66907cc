// The reference Icechunk behind the RepositoryHandle contract. It runs in one long-lived child
// process (icechunk-child.ts) because the WASM runtime keeps a process alive; requests go over
// stdin/stdout as JSON lines. Call `dispose()` when done: it closes the child's stdin, and the
// child exits after its last reply.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { missingDependency } from '../../optional-dependency.ts';
import type { ErrorClass, ReadSource, TreeListing } from '../model/repository-model.ts';
import type { RepositoryAdapter, RepositoryHandle } from './types.ts';

// Built JS runs the compiled child as it is; from TypeScript sources the child needs tsx's
// loader, as a file URL resolved from Floe's own dependencies (a bare `--import tsx` is resolved
// from the working directory, where tsx may not be installed).
const FROM_SOURCE = import.meta.url.endsWith('.ts');
const CHILD = path.join(path.dirname(fileURLToPath(import.meta.url)), FROM_SOURCE ? 'icechunk-child.ts' : 'icechunk-child.js');
const LOADER_ARGS = FROM_SOURCE ? ['--import', pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href] : [];

class ChildConnection {
  private readonly pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  private nextId = 1;
  private stderr = '';

  constructor(private readonly child: ChildProcessWithoutNullStreams) {
    createInterface({ input: child.stdout }).on('line', (line) => {
      if (!line.startsWith('{')) return;
      const reply = JSON.parse(line) as { id: number; ok: boolean; value?: unknown; error?: string };
      const waiter = this.pending.get(reply.id);
      this.pending.delete(reply.id);
      if (reply.ok) waiter?.resolve(reply.value);
      else waiter?.reject(new ReferenceIcechunkError(reply.error ?? 'unknown error'));
    });
    child.stderr.on('data', (d: Buffer) => (this.stderr = (this.stderr + d.toString()).slice(-4000)));
    child.on('exit', (code) => {
      for (const w of this.pending.values()) w.reject(new Error(`reference child exited (${code}): ${this.stderr}`));
      this.pending.clear();
    });
  }

  call<T>(method: string, ...args: unknown[]): Promise<T> {
    const id = this.nextId++;
    // A dead child answers nothing: fail now rather than wait forever.
    if (this.child.exitCode !== null || this.child.signalCode !== null) {
      return Promise.reject(new Error(`reference child exited (${this.child.exitCode ?? this.child.signalCode}): ${this.stderr}`));
    }
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      this.child.stdin.write(JSON.stringify({ id, method, args }) + '\n');
    });
  }

  async close(): Promise<void> {
    if (this.child.exitCode !== null) return;
    const exited = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
    this.child.stdin.end();
    const timer = setTimeout(() => this.child.kill(), 5_000);
    await exited;
    clearTimeout(timer);
  }
}

/** An error the reference reported; its message is the reference's own. */
export class ReferenceIcechunkError extends Error {
  override readonly name = 'ReferenceIcechunkError';
}

/** The reference's messages, mapped to the model's error classes. */
export function classifyReferenceError(err: unknown): ErrorClass {
  const message = err instanceof Error ? err.message : String(err);
  // A commit on a moved branch: "branch update conflict"; a rebase that meets a conflict: "cannot
  // rebase snapshot … on top of the branch" (the conflicts themselves are not in the message).
  if (/conflict|cannot rebase/i.test(message)) return 'conflict';
  if (/no changes made/i.test(message)) return 'no-changes';
  if (/already exists/i.test(message)) return 'already-exists';
  if (/not found/i.test(message)) return 'not-found';
  return 'other';
}

class IcechunkRepositoryHandle implements RepositoryHandle {
  constructor(private readonly child: ChildConnection, private readonly id: number) {}
  private call<T = void>(method: string, ...args: unknown[]): Promise<T> {
    return this.child.call<T>(method, this.id, ...args);
  }
  openSession(slot: number, branch: string) { return this.call('openSession', slot, branch); }
  createGroup(slot: number, p: string) { return this.call('createGroup', slot, p); }
  createArray(slot: number, p: string) { return this.call('createArray', slot, p); }
  deleteNode(slot: number, p: string) { return this.call('deleteNode', slot, p); }
  setAttribute(slot: number, p: string, value: number) { return this.call('setAttribute', slot, p, value); }
  writeChunk(slot: number, p: string, chunk: number, value: number) { return this.call('writeChunk', slot, p, chunk, value); }
  eraseChunk(slot: number, p: string, chunk: number) { return this.call('eraseChunk', slot, p, chunk); }
  commit(slot: number, message: string) { return this.call<string>('commit', slot, message); }
  rebase(slot: number) { return this.call('rebase', slot); }
  moveNode(branch: string, from: string, to: string, message: string) { return this.call<string>('moveNode', branch, from, to, message); }
  lookupBranch(branch: string) { return this.call<string>('lookupBranch', branch); }
  createBranch(name: string, snapshotId: string) { return this.call('createBranch', name, snapshotId); }
  createTag(name: string, snapshotId: string) { return this.call('createTag', name, snapshotId); }
  resetBranch(branch: string, snapshotId: string) { return this.call('resetBranch', branch, snapshotId); }
  readTree(source: ReadSource) { return this.call<TreeListing>('readTree', source); }
  classifyError(err: unknown): ErrorClass { return classifyReferenceError(err); }
  close() { return this.call('closeRepository'); }
}

/** The reference package must resolve here before a child is started to load it. */
function requireReference(): void {
  try {
    createRequire(import.meta.url).resolve('@earthmover/icechunk');
  } catch (err) {
    throw missingDependency('@earthmover/icechunk', 'the reference Icechunk adapter', err);
  }
}

/** The reference Icechunk adapter: runs the reference in a child process, which `dispose()` ends. */
export interface IcechunkRepositoryAdapter extends RepositoryAdapter {
  /** Ends the child process (after pending requests). */
  dispose(): Promise<void>;
}

/** The reference Icechunk; needs `@earthmover/icechunk` (and its WASM build) installed. */
export function icechunkRepositoryAdapter(): IcechunkRepositoryAdapter {
  let connection: ChildConnection | undefined;
  const connect = (): ChildConnection => {
    if (connection) return connection;
    requireReference();
    connection = new ChildConnection(spawn(process.execPath, [...LOADER_ARGS, '--no-warnings', CHILD], { stdio: ['pipe', 'pipe', 'pipe'] }));
    return connection;
  };
  return {
    name: '@earthmover/icechunk',
    async createRepository() {
      const child = connect();
      return new IcechunkRepositoryHandle(child, await child.call<number>('createRepository'));
    },
    async dispose() {
      await connection?.close();
      connection = undefined;
    },
  };
}
