// parent_id: spec-1 snapshots carry it, spec-2 snapshots "MUST be empty" (the parent lives in the
// repo info file). A spec-2 file with one is corrupt, not a value Floe would refuse to write back.
import { describe, expect, it } from 'vitest';
import { HEADER_OFFSETS } from '../../../src/format/icechunk/header.ts';
import { asSnapshotId } from '../../../src/format/icechunk/ids.ts';
import { decodeSnapshot, encodeSnapshot, type Snapshot } from '../../../src/format/icechunk/snapshot.ts';

const snapshot: Snapshot = {
  specVersion: 1, id: asSnapshotId(new Uint8Array(12).fill(1)), parentId: asSnapshotId(new Uint8Array(12).fill(2)),
  flushedAt: 5, message: 'second', metadata: [], manifestFiles: [], nodes: [], extra: null,
};

describe('snapshot parent_id', () => {
  it('is read from spec-1 files', () => {
    expect(decodeSnapshot(encodeSnapshot(snapshot)).parentId).toEqual(snapshot.parentId);
  });

  it('makes a spec-2 file CORRUPT_OBJECT', () => {
    const file = encodeSnapshot(snapshot, { compression: 'none' });
    file[HEADER_OFFSETS.specVersion] = 2;
    expect(() => decodeSnapshot(file)).toThrow(expect.objectContaining({ code: 'CORRUPT_OBJECT', message: expect.stringMatching(/parent_id/) }) as Error);
    file[HEADER_OFFSETS.specVersion] = 1;
    expect(decodeSnapshot(file).parentId).toEqual(snapshot.parentId);
  });
});
