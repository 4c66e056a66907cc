// A whole metadata file: header + (compressed) flatbuffers payload. Every file-type module goes
// through these two functions, so the header and compression rules live in one place.
import { floeError } from '../../errors.ts';
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
import { zstdCompress, zstdDecompress } from './zstd.ts';

/** The flatbuffers file identifier at bytes 4..8 of every payload. */
export const FILE_IDENTIFIER = 'Ichk';

export interface EncodeFileOptions {
  /** Defaults to Floe's own name; tests pass the reference's to compare bytes. */
  implementation?: string;
  compression?: Compression;
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
  const body = compression === 'zstd' ? zstdCompress(payload, options.zstdLevel) : payload;
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

export function decodeFile(bytes: Uint8Array, expected: FileType, where?: string): DecodedFile {
  const header = decodeHeader(bytes, expected, where);
  const body = bytes.subarray(HEADER_SIZE);
  const payload = header.compression === 'zstd' ? zstdDecompress(body, { where }) : body;
  if (payload.length < 8 || String.fromCharCode(...payload.subarray(4, 8)) !== FILE_IDENTIFIER) {
    throw floeError('CORRUPT_OBJECT', `the ${expected} payload lacks the flatbuffers identifier '${FILE_IDENTIFIER}'`, { where });
  }
  return { header, payload };
}
