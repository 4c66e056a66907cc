// `numcodecs.msgpack2` (numcodecs' MsgPack, "msgpack2" in Zarr v2): a chunk of strings as the
// MessagePack of numcodecs' item list (object-items.ts), written in the most compact forms, as
// Python's msgpack does with use_bin_type (str8 for short strings).
import { floeError } from '../../../errors.ts';
import { decodeMsgpack, encodeMsgpack } from '../../icechunk/msgpack.ts';
import type { MetadataValue } from '../../icechunk/metadata-value-types.ts';
import { cStrides } from '../../zarr/ndarray.ts';
import { checkKeys, decodingGuard, readBool } from '../bytes-codec-support.ts';
import { PLAIN_CAPABILITIES, type ArrayCodecImplementation } from '../codec-implementation.ts';
import { toCContiguous } from '../contiguous.ts';
import { objectItems, stringsOfItems } from './object-items.ts';

const NAME = 'numcodecs.msgpack2';

export const msgpack2Entry: ArrayCodecImplementation = {
  name: NAME,
  kind: 'array_to_bytes',
  capabilities: PLAIN_CAPABILITIES,
  zarrV3: (configuration, { spec }) => {
    checkKeys(NAME, configuration, ['raw', 'use_single_float', 'use_bin_type']);
    if (spec.dataType.kind !== 'string') throw floeError('UNSUPPORTED', `${NAME}: Floe reads msgpack2 object arrays of strings, not ${spec.dataType.name}`);
    if (readBool(NAME, configuration, 'raw', false) || !readBool(NAME, configuration, 'use_bin_type', true)) {
      throw floeError('UNSUPPORTED', `${NAME}: "raw": true or "use_bin_type": false store strings as raw bytes; Floe reads msgpack2 with numcodecs' defaults`);
    }
    const json = { name: NAME, configuration: { ...configuration } };
    return {
      kind: 'array_to_bytes',
      name: NAME,
      toJSON: () => json,
      encode(array, chunk) {
        const strings = toCContiguous(array, chunk.dataType).data as string[];
        return encodeMsgpack(objectItems(strings, chunk.shape) as MetadataValue);
      },
      decode(bytes, chunk) {
        const data = decodingGuard(NAME, () => stringsOfItems(NAME, decodeMsgpack(bytes, NAME), chunk.shape));
        return { data, shape: [...chunk.shape], stride: cStrides(chunk.shape) };
      },
    };
  },
};
