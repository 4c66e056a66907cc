// CRC-32 (zlib's, reflected polynomial 0xedb88320), as numcodecs' CRC32 takes it from zlib:
// @node-rs/crc32's native one where its binary is installed, else a table-driven JS one.
import type * as NodeRsCrc32 from '@node-rs/crc32';
import { loadPackage } from '../../../optional-dependency.ts';
import { hostEnv } from '../../../platform/host.ts';

const TABLE = Int32Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0xedb88320 : c >>> 1;
  return c;
});

export function crc32Js(data: Uint8Array): number {
  let crc = -1;
  for (const byte of data) crc = (crc >>> 8) ^ (TABLE[(crc ^ byte) & 255] ?? 0);
  return (crc ^ -1) >>> 0;
}

function loadNative(): ((data: Uint8Array) => number) | undefined {
  if (hostEnv('FLOE_CRC32C') === 'js') return undefined; // the crc32c codec's switch: tests exercise the JS paths
  try {
    const { crc32: native } = loadPackage<typeof NodeRsCrc32>('@node-rs/crc32');
    return (data) => native(data) >>> 0;
  } catch {
    return undefined;
  }
}

export const crc32: (data: Uint8Array) => number = loadNative() ?? crc32Js;
