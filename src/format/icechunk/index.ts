// The Icechunk on-disk format: pure codecs from bytes to plain typed objects and back.
export * from './header.ts';
export * from './framing.ts';
export * from './ids.ts';
export * from './keys.ts';
export * from './metadata-value.ts';
export * from './node-path.ts';
export * from './snapshot.ts';
export * from './manifest.ts';
export * from './transaction-log.ts';
export * from './repo-info.ts';
export * from './repo-updates.ts';
export * from './spec1.ts';
export * from './spec1-config.ts';
export { decodeMsgpack, encodeMsgpack } from './msgpack.ts';
export { zstdCompress, zstdDecompress } from './zstd.ts';
