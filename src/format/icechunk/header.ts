// The 39-byte header every Icechunk metadata file starts with. The layout is one table; offsets,
// the total size, encode and decode all derive from it.
import { floeError } from '../../errors.ts';
import { checkedAt } from '../indexing.ts';
import { ICECHUNK_FILE_COMPRESSIONS, icechunkFileCompression, icechunkFileCompressionName } from '../codecs/registry.ts';

export const HEADER_FIELDS = [
  { name: 'magic', size: 12 },
  { name: 'implementation', size: 24 },
  { name: 'specVersion', size: 1 },
  { name: 'fileType', size: 1 },
  { name: 'compression', size: 1 },
] as const;

type FieldName = (typeof HEADER_FIELDS)[number]['name'];

export const HEADER_OFFSETS = (() => {
  const offsets = {} as Record<FieldName, number>;
  let at = 0;
  for (const field of HEADER_FIELDS) {
    offsets[field.name] = at;
    at += field.size;
  }
  return offsets;
})();

export const HEADER_SIZE = HEADER_FIELDS.reduce((sum, field) => sum + field.size, 0);
const IMPLEMENTATION_SIZE = HEADER_FIELDS[1].size;

/** `ICE🧊CHUNK` in UTF-8. */
export const MAGIC = new TextEncoder().encode('ICE🧊CHUNK');

export const FILE_TYPES = { snapshot: 1, manifest: 2, transactionLog: 4, repoInfo: 6 } as const;
export type FileType = keyof typeof FILE_TYPES;

/**
 * The payload compression: "none" or the name of a codec registry entry with an Icechunk binding
 * ("zstd"). The registry holds the header bytes, so a new compression is added there alone.
 */
export type Compression = string;

export const SPEC_VERSIONS = [1, 2] as const;
export type SpecVersion = (typeof SPEC_VERSIONS)[number];

/** What Floe writes in the implementation-name field. */
export const FLOE_IMPLEMENTATION_NAME = 'floe-0.1.0';

export interface FileHeader {
  implementation: string;
  specVersion: SpecVersion;
  fileType: FileType;
  compression: Compression;
}

export function encodeHeader(header: FileHeader): Uint8Array {
  const name = new TextEncoder().encode(header.implementation);
  if (name.length > IMPLEMENTATION_SIZE) {
    throw floeError('INVALID_ARGUMENT', `implementation name '${header.implementation}' is over ${IMPLEMENTATION_SIZE} bytes of UTF-8; shorten it`);
  }
  const out = new Uint8Array(HEADER_SIZE);
  out.set(MAGIC, HEADER_OFFSETS.magic);
  out.fill(0x20, HEADER_OFFSETS.implementation, HEADER_OFFSETS.implementation + IMPLEMENTATION_SIZE);
  out.set(name, HEADER_OFFSETS.implementation);
  out[HEADER_OFFSETS.specVersion] = header.specVersion;
  out[HEADER_OFFSETS.fileType] = FILE_TYPES[header.fileType];
  out[HEADER_OFFSETS.compression] = compressionByte(header.compression);
  return out;
}

function compressionByte(name: Compression): number {
  const compression = icechunkFileCompression(name);
  if (!compression) {
    throw floeError('INVALID_ARGUMENT', `Icechunk compression '${name}' is not known; use one of ${[...ICECHUNK_FILE_COMPRESSIONS.values()].join(', ')}`);
  }
  return compression.byte;
}

function keyOf<T extends Record<string, number>>(table: T, value: number): keyof T | undefined {
  return (Object.keys(table) as (keyof T)[]).find((key) => table[key] === value);
}

/**
 * Reads and checks a header. A file of another type is CORRUPT_OBJECT (the key points at the
 * wrong thing); a spec version or compression Floe does not know is UNSUPPORTED (a newer writer).
 */
export function decodeHeader(bytes: Uint8Array, expected: FileType, where?: string): FileHeader {
  if (bytes.length < HEADER_SIZE) {
    throw floeError('CORRUPT_OBJECT', `an Icechunk ${expected} file is at least ${HEADER_SIZE} bytes, this one has ${bytes.length}; the object is truncated or not an Icechunk file`, { where });
  }
  for (let i = 0; i < MAGIC.length; i++) {
    if (bytes[HEADER_OFFSETS.magic + i] !== MAGIC[i]) {
      throw floeError('CORRUPT_OBJECT', `not an Icechunk file: the magic bytes 'ICE🧊CHUNK' are missing`, { where });
    }
  }
  // The header bytes are in range: the length was checked against HEADER_SIZE above.
  const specByte = checkedAt(bytes, HEADER_OFFSETS.specVersion, 'CORRUPT_OBJECT', 'the header', where);
  const specVersion = SPEC_VERSIONS.find((v) => v === specByte);
  if (specVersion === undefined) {
    throw floeError('UNSUPPORTED', `Icechunk spec version ${specByte} is not supported (Floe reads 1 and 2); upgrade Floe`, { where });
  }
  const typeByte = checkedAt(bytes, HEADER_OFFSETS.fileType, 'CORRUPT_OBJECT', 'the header', where);
  const fileType = keyOf(FILE_TYPES, typeByte);
  if (fileType !== expected) {
    throw floeError('CORRUPT_OBJECT', `expected an Icechunk ${expected} file, found file type ${fileType ?? typeByte}; the key points at the wrong object`, { where });
  }
  const compressionByte = checkedAt(bytes, HEADER_OFFSETS.compression, 'CORRUPT_OBJECT', 'the header', where);
  const compression = icechunkFileCompressionName(compressionByte);
  if (compression === undefined) {
    const known = [...ICECHUNK_FILE_COMPRESSIONS].map(([byte, name]) => `${byte} = ${name}`).join(', ');
    throw floeError('UNSUPPORTED', `Icechunk compression algorithm ${compressionByte} is not supported (${known})`, { where });
  }
  const nameBytes = bytes.subarray(HEADER_OFFSETS.implementation, HEADER_OFFSETS.implementation + IMPLEMENTATION_SIZE);
  const implementation = new TextDecoder().decode(nameBytes).trimEnd();
  return { implementation, specVersion, fileType, compression };
}
