/**
 * Floe as a conformance oracle: fast-check arbitraries of arrays and repository histories,
 * reference models, adapters (Floe, zarrita, the reference Icechunk) and the harness comparing them.
 * @module floe/testing
 */
// floe/testing: Floe as a conformance oracle. Arbitraries (fast-check), the reference models, the
// adapter contract with adapters for Floe, zarrita and the reference Icechunk, and the harness.
export { arrayCaseArb, arrayMetadataInput, type ArrayCase, type ArrayCaseOptions } from './arbitraries/array-metadata.ts';
export { arrayOpsArb, type ArrayOp, type ArrayOpsOptions, type WriteForm } from './arbitraries/array-ops.ts';
export { chunkDataArb, randomElements, randomScalar } from './arbitraries/chunk-data.ts';
export { bytesToBytesArb, codecChainArb, type CodecOptions, type CompressorName } from './arbitraries/codecs.ts';
export { DATA_TYPES, bytesOf, dataTypeNamed, toArrayData, type ElementValues, type TestDataType } from './arbitraries/data-types.ts';
export { fillValueArb, type Fill, type FillOptions } from './arbitraries/fill-values.ts';
export { HISTORY_ARRAY, HISTORY_PATHS, describeHistoryOp, historyOpArb, repositoryHistoryArb, type HistoryOp, type HistoryOptions, type HistoryPath, type Slot } from './arbitraries/repository-history.ts';
export { describeSelection, selectionArb, selectionItemArb, type SelectionOptions } from './arbitraries/selections.ts';
export { v1ArrayInputArb, type V1Case, type V1CaseOptions } from './arbitraries/v1-metadata.ts';
export { v2ArrayInputArb, type V2Case } from './arbitraries/v2-metadata.ts';
export { ModelArray, pythonSliceIndices, resolveOrUndefined, resolveSelection, resultShapeOf, type ModelDim, type ModelItem } from './model/array-model.ts';
export { RepositoryModel, listTree, type ConflictKind, type ErrorClass, type Expectation, type ListedNode, type ModelConflict, type ReadSource, type RepositoryModelOptions, type TreeListing } from './model/repository-model.ts';
export type { ArrayAdapter, ArrayHandle, ArrayRead, RepositoryAdapter, RepositoryHandle } from './adapters/types.ts';
export { floeArrayAdapter } from './adapters/floe-array.ts';
export { floeRepositoryAdapter, type FloeRepositoryOptions } from './adapters/floe-repository.ts';
export { ZARRITA_DATA_TYPES, zarritaArrayAdapter } from './adapters/zarrita-array.ts';
export { classifyReferenceError, icechunkRepositoryAdapter, type IcechunkRepositoryAdapter } from './adapters/icechunk-repository.ts';
export { customBackend } from './adapters/icechunk-storage.ts';
export { checkArrayCase } from './array-runner.ts';
export { checkHistory, describeHistory, type Mismatch } from './repository-runner.ts';
export { compareArrays, compareRepositories, formatDivergence, type ArrayConformanceOptions, type ConformanceResult, type Divergence, type RepositoryConformanceOptions, type RunOptions } from './harness.ts';
export { FakeClock, type FakeClockOptions } from './fake-clock.ts';
export { runConformance, ZARRITA_CASES, ZARRITA_SELECTIONS, type ConformanceCommandOptions, type ConformancePeer } from './conformance-command.ts';
