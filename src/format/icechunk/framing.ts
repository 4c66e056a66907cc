// A whole metadata file: header + (compressed) flatbuffers payload. Every file-type module goes
// through these two functions, so the header and compression rules live in one place. The
// compression named in the header is found in the codec registry (codecs/registry.ts).
import { floeError } from '../../errors.ts';
import { icechunkFileCompression, type FileCompression } from '../codecs/registry.ts';
import { resourceLimits, type ResourceLimits } from '../limits.ts';
import {
  decodeHeader,
  encodeHeader,
  FLOE_IMPLEMENTATION_NAME,
  HEADER_SIZE,
  type Compression,
  type FileHeader,
  type FileType,
  type SpecVersion,
} from './header.ts';

/** The flatbuffers file identifier at bytes 4..8 of every payload. */
export const FILE_IDENTIFIER = 'Ichk';

export interface EncodeFileOptions {
  /** Defaults to Floe's own name; tests pass the reference's to compare bytes. */
  implementation?: string;
  compression?: Compression;
  /** The compression level (named for zstd, the one compression Icechunk has); its default if unset. */
  zstdLevel?: number;
}

export function encodeFile(
  fileType: FileType,
  specVersion: SpecVersion,
  payload: Uint8Array,
  options: EncodeFileOptions = {},
): Uint8Array {
  const compression = options.compression ?? 'zstd';
  const header = encodeHeader({
    implementation: options.implementation ?? FLOE_IMPLEMENTATION_NAME,
    specVersion,
    fileType,
    compression,
  });
  const body = fileCompression(compression).compress(payload, options.zstdLevel);
  const out = new Uint8Array(HEADER_SIZE + body.length);
  out.set(header, 0);
  out.set(body, HEADER_SIZE);
  return out;
}

export interface DecodedFile {
  header: FileHeader;
  /** The uncompressed flatbuffers payload. */
  payload: Uint8Array;
}

/** The resource limit that bounds each file type's decoded payload (limits.ts gives the defaults). */
const PAYLOAD_LIMITS: Readonly<Record<FileType, keyof ResourceLimits>> = {
  snapshot: 'snapshotBytes',
  manifest: 'manifestBytes',
  transactionLog: 'transactionLogBytes',
  repoInfo: 'repoInfoBytes',
};

/**
 * Reads a file's header and decompresses its payload, held to the file type's limit: a zstd frame
 * declaring more is refused from its header, one that does not say is stopped while streaming.
 */
export function decodeFile(bytes: Uint8Array, expected: FileType, where?: string): DecodedFile {
  const header = decodeHeader(bytes, expected, where);
  const body = bytes.subarray(HEADER_SIZE);
  const maxBytes = resourceLimits()[PAYLOAD_LIMITS[expected]];
  // `where` only when known: the codec options take no explicit undefined.
  const payload = fileCompression(header.compression).decompress(body, where === undefined ? { maxBytes } : { where, maxBytes });
  if (payload.length < 8 || String.fromCharCode(...payload.subarray(4, 8)) !== FILE_IDENTIFIER) {
    throw floeError('CORRUPT_OBJECT', `the ${expected} payload lacks the flatbuffers identifier '${FILE_IDENTIFIER}'`, { where });
  }
  return { header, payload };
}

/** The header codecs have already checked the name; a miss here is a bug, so it is not dressed up. */
function fileCompression(name: string): FileCompression {
  const compression = icechunkFileCompression(name);
  if (!compression) throw new Error(`no Icechunk file compression '${name}' in the codec registry`);
  return compression;
}
