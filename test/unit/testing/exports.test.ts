// Pins floe/testing's public surface: adding or removing an export is a visible decision.
import { describe, expect, it } from 'vitest';
import * as testing from '../../../src/testing/index.ts';

describe('floe/testing exports', () => {
  it('are exactly these', () => {
    expect(Object.keys(testing).sort()).toEqual([
      'DATA_TYPES', 'FakeClock', 'HISTORY_ARRAY', 'HISTORY_PATHS', 'ModelArray', 'RepositoryModel', 'ZARRITA_CASES', 'ZARRITA_DATA_TYPES', 'ZARRITA_SELECTIONS',
      'arrayCaseArb', 'arrayMetadataInput', 'arrayOpsArb', 'bytesOf', 'bytesToBytesArb', 'checkArrayCase', 'checkHistory', 'chunkDataArb',
      'classifyReferenceError', 'codecChainArb', 'compareArrays', 'compareRepositories', 'customBackend', 'dataTypeNamed', 'describeHistory',
      'describeHistoryOp', 'describeSelection', 'fillValueArb', 'floeArrayAdapter', 'floeRepositoryAdapter', 'formatDivergence', 'historyOpArb',
      'icechunkRepositoryAdapter', 'listTree', 'pythonSliceIndices', 'randomElements', 'randomScalar', 'repositoryHistoryArb', 'resolveOrUndefined',
      'resolveSelection', 'resultShapeOf', 'runConformance', 'selectionArb', 'selectionItemArb', 'toArrayData', 'v1ArrayInputArb', 'v2ArrayInputArb', 'zarritaArrayAdapter',
    ].sort());
  });
});
