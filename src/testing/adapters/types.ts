// The adapter contract the harness drives. An implementation under test needs only these few
// operations; everything else (which cases, what to expect, how to report) is the harness's job.
// Values cross the boundary as raw little-endian memory bytes (or strings), so comparisons are
// bit-exact whatever typed arrays an implementation uses.
import type { ZarrStore } from '../../engine/store.ts';
import type { ArrayCase } from '../arbitraries/array-metadata.ts';
import type { ElementValues } from '../arbitraries/data-types.ts';
import type { ModelItem } from '../model/array-model.ts';
import type { ErrorClass, ReadSource, TreeListing } from '../model/repository-model.ts';

export interface ArrayRead {
  readonly shape: readonly number[];
  /** C order. */
  readonly values: ElementValues;
}

export interface ArrayHandle {
  read(selection: readonly ModelItem[]): Promise<ArrayRead>;
  /** `values` in C order of the selection's shape. */
  write(selection: readonly ModelItem[], values: ElementValues): Promise<void>;
}

/** A plain Zarr v3 implementation over a shared store (Floe's `ZarrStore` is also a zarrita store). */
export interface ArrayAdapter {
  readonly name: string;
  /** False for arrays this implementation cannot write (its documented limits): the peer writes them. */
  canWrite(c: ArrayCase): boolean;
  createArray(store: ZarrStore, path: string, c: ArrayCase): Promise<ArrayHandle>;
  openArray(store: ZarrStore, path: string): Promise<ArrayHandle>;
}

/**
 * One repository with numbered writable session slots. Arrays are the fixed layout of
 * HISTORY_ARRAY (int32, fill 0). After a successful `commit` the slot is a writable session on
 * the new tip; after a failed one it keeps its changes, and so does a failed `rebase`.
 */
export interface RepositoryHandle {
  openSession(slot: number, branch: string): Promise<void>;
  createGroup(slot: number, path: string): Promise<void>;
  createArray(slot: number, path: string): Promise<void>;
  deleteNode(slot: number, path: string): Promise<void>;
  /** Rewrites the node's zarr.json (same kind, same array layout) with attributes `{ v: value }`. */
  setAttribute(slot: number, path: string, value: number): Promise<void>;
  writeChunk(slot: number, path: string, chunk: number, value: number): Promise<void>;
  eraseChunk(slot: number, path: string, chunk: number): Promise<void>;
  /** Returns the new snapshot id. */
  commit(slot: number, message: string): Promise<string>;
  /** Rebases the session onto its branch's tip; any conflict fails it (a conflict detector, no solving). */
  rebase(slot: number): Promise<void>;
  /** Moves a node in a transaction of its own on the branch tip; returns the new snapshot id. */
  moveNode(branch: string, from: string, to: string, message: string): Promise<string>;
  lookupBranch(branch: string): Promise<string>;
  createBranch(name: string, snapshotId: string): Promise<void>;
  createTag(name: string, snapshotId: string): Promise<void>;
  resetBranch(branch: string, snapshotId: string): Promise<void>;
  readTree(source: ReadSource): Promise<TreeListing>;
  /** Maps an error this implementation threw to the model's classes. */
  classifyError(err: unknown): ErrorClass;
  close(): Promise<void>;
}

export interface RepositoryAdapter {
  readonly name: string;
  createRepository(): Promise<RepositoryHandle>;
}
