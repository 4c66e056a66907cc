// Chunk key encodings (Zarr v3 core: "default" and "v2"). Keys are relative to the array's prefix.
import { floeError } from '../../errors.ts';
import { isJsonObject, type JsonValue } from '../json.ts';

/** How chunk coordinates become store keys: `default` (`c/1/2`) or `v2` (`1.2`), with the separator. */
export interface ChunkKeyEncoding {
  readonly name: 'default' | 'v2';
  readonly separator: '/' | '.';
}

export function parseChunkKeyEncoding(value: JsonValue | undefined, where?: string): ChunkKeyEncoding {
  if (!isJsonObject(value) || (value.name !== 'default' && value.name !== 'v2')) {
    if (isJsonObject(value) && typeof value.name === 'string') {
      throw floeError('UNSUPPORTED', `chunk key encoding "${value.name}" is not supported; use "default" or "v2"`, { where });
    }
    throw floeError('INVALID_METADATA', 'chunk_key_encoding must be {name: "default" | "v2", configuration?}', { where });
  }
  const config = value.configuration;
  if (config !== undefined && !isJsonObject(config)) {
    throw floeError('INVALID_METADATA', 'chunk_key_encoding.configuration must be an object', { where });
  }
  const separator = config?.separator ?? (value.name === 'default' ? '/' : '.');
  if (separator !== '/' && separator !== '.') {
    throw floeError('INVALID_METADATA', `chunk key separator must be "/" or ".", got ${JSON.stringify(separator)}`, { where });
  }
  return Object.freeze({ name: value.name, separator });
}

/** The key of the chunk at grid coordinates `coords`, relative to the array. */
export function chunkKey(encoding: ChunkKeyEncoding, coords: readonly number[]): string {
  if (encoding.name === 'default') {
    return coords.length === 0 ? 'c' : 'c' + encoding.separator + coords.join(encoding.separator);
  }
  return coords.length === 0 ? '0' : coords.join(encoding.separator);
}

/** Inverse of chunkKey: grid coordinates, or undefined if `key` is not a chunk key of this encoding. */
export function parseChunkKey(encoding: ChunkKeyEncoding, key: string, rank: number): number[] | undefined {
  let body: string;
  if (encoding.name === 'default') {
    if (rank === 0) return key === 'c' ? [] : undefined;
    if (!key.startsWith('c' + encoding.separator)) return undefined;
    body = key.slice(2);
  } else {
    if (rank === 0) return key === '0' ? [] : undefined;
    body = key;
  }
  const parts = body.split(encoding.separator);
  if (parts.length !== rank || !parts.every((p) => /^(0|[1-9]\d*)$/.test(p))) return undefined;
  return parts.map(Number);
}
