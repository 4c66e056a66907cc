// What a scanner hands to virtualize.ts: per source, the groups and arrays to record (metadata,
// virtual refs, chunks to store) and the variables skipped with the reason.
import type { ArrayMetadataInput, Attributes } from '../format/zarr/metadata.ts';
import { validateNodeName } from '../format/zarr/paths.ts';
import type { VirtualChunkSpec } from './session-store.ts';

/** A variable virtualize could not record, and why (the rest of its file still imports). */
export interface SkippedVariable {
  /** The file (absolute path). */
  readonly source: string;
  /** Its name in the file (kerchunk: its path in the references). */
  readonly variable: string;
  /** Why it cannot be recorded. */
  readonly reason: string;
}

/** One array ready to write: metadata, virtual refs, and chunks to store. */
export interface PlannedArray {
  readonly variable: string;
  /** Path relative to the source's group ('' for the group itself: a kerchunk root array). */
  readonly relativePath: string;
  readonly metadata: ArrayMetadataInput;
  readonly refs: readonly VirtualChunkSpec[];
  readonly stored: readonly { readonly index: readonly number[]; readonly bytes: Uint8Array }[];
}

export interface PlannedSource {
  readonly source: string;
  readonly format: string;
  readonly groups: readonly { readonly relativePath: string; readonly attributes: Attributes }[];
  readonly arrays: readonly PlannedArray[];
  readonly skipped: readonly SkippedVariable[];
}

/** Why a variable name cannot be a Zarr node name, or undefined. */
export function nodeNameProblem(name: string): string | undefined {
  try {
    validateNodeName(name);
    return undefined;
  } catch (err) {
    return `its name is not a valid Zarr node name: ${(err as Error).message}`;
  }
}
