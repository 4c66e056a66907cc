// The adapter contract the harness drives. An implementation under test needs only these few
// operations; everything else (which cases, what to expect, how to report) is the harness's job.
// Values cross the boundary as raw little-endian memory bytes (or strings), so comparisons are
// bit-exact whatever typed arrays an implementation uses.
import type { ZarrStore } from '../../engine/store.ts';
import type { ArrayCase } from '../arbitraries/array-metadata.ts';
import type { ElementValues } from '../arbitraries/data-types.ts';
import type { ModelItem } from '../model/array-model.ts';
import type { ErrorClass, ReadSource, TreeListing } from '../model/repository-model.ts';

/** What {@link ArrayHandle.read} returns: the selection's shape and values as raw memory bytes (or strings). */
export interface ArrayRead {
  readonly shape: readonly number[];
  /** C order. */
  readonly values: ElementValues;
}

/** An open array of an implementation under test, read and written with model selections. */
export interface ArrayHandle {
  /** Reads a selection; throws where the implementation refuses it (out of bounds, ...). */
  read(selection: readonly ModelItem[]): Promise<ArrayRead>;
  /** `values` in C order of the selection's shape. */
  write(selection: readonly ModelItem[], values: ElementValues): Promise<void>;
}

/** A plain Zarr v3 implementation over a shared store (Floe's `ZarrStore` is also a zarrita store). */
export interface ArrayAdapter {
  readonly name: string;
  /** False for arrays this implementation cannot write (its documented limits): the peer writes them. */
  canWrite(c: ArrayCase): boolean;
  /** Creates the case's array at `path` of `store`. */
  createArray(store: ZarrStore, path: string, c: ArrayCase): Promise<ArrayHandle>;
  /** Opens the array at `path` of `store` (possibly written by another implementation). */
  openArray(store: ZarrStore, path: string): Promise<ArrayHandle>;
}

/**
 * One repository with numbered writable session slots. Arrays are the fixed layout of
 * HISTORY_ARRAY (int32, fill 0). After a successful `commit` the slot is a writable session on
 * the new tip; after a failed one it keeps its changes, and so does a failed `rebase`.
 */
export interface RepositoryHandle {
  /** Opens a writable session on a branch's tip into `slot`, replacing what the slot held. */
  openSession(slot: number, branch: string): Promise<void>;
  /** Creates a group at `path` in the slot's session. */
  createGroup(slot: number, path: string): Promise<void>;
  /** Creates an array with the {@link HISTORY_ARRAY} layout at `path` in the slot's session. */
  createArray(slot: number, path: string): Promise<void>;
  /** Deletes the node at `path` (and its subtree) in the slot's session. */
  deleteNode(slot: number, path: string): Promise<void>;
  /** Rewrites the node's zarr.json (same kind, same array layout) with attributes `{ v: value }`. */
  setAttribute(slot: number, path: string, value: number): Promise<void>;
  /** Writes chunk number `chunk` of the array at `path`, every element `value`. */
  writeChunk(slot: number, path: string, chunk: number, value: number): Promise<void>;
  /** Deletes chunk number `chunk` of the array at `path`, so it reads as the fill value. */
  eraseChunk(slot: number, path: string, chunk: number): Promise<void>;
  /** Returns the new snapshot id. */
  commit(slot: number, message: string): Promise<string>;
  /** Rebases the session onto its branch's tip; any conflict fails it (a conflict detector, no solving). */
  rebase(slot: number): Promise<void>;
  /** Moves a node in a transaction of its own on the branch tip; returns the new snapshot id. */
  moveNode(branch: string, from: string, to: string, message: string): Promise<string>;
  /** The snapshot id a branch points at. */
  lookupBranch(branch: string): Promise<string>;
  /** Creates a branch at a snapshot. */
  createBranch(name: string, snapshotId: string): Promise<void>;
  /** Creates a tag at a snapshot. */
  createTag(name: string, snapshotId: string): Promise<void>;
  /** Points a branch at a snapshot. */
  resetBranch(branch: string, snapshotId: string): Promise<void>;
  /** Lists every node and its contents as a session slot, branch tip or tag sees them. */
  readTree(source: ReadSource): Promise<TreeListing>;
  /** Maps an error this implementation threw to the model's classes. */
  classifyError(err: unknown): ErrorClass;
  /** Releases the repository (and its sessions). */
  close(): Promise<void>;
}

/** A versioned-repository implementation under test: makes fresh repositories for the harness. */
export interface RepositoryAdapter {
  readonly name: string;
  /** A new, empty repository (an empty root group committed on `main`). */
  createRepository(): Promise<RepositoryHandle>;
}
