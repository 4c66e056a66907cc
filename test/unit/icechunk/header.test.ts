import { describe, expect, it } from 'vitest';
import { decodeHeader, encodeHeader, HEADER_OFFSETS, HEADER_SIZE, MAGIC } from '../../../src/format/icechunk/header.ts';
import { decodeFile, encodeFile } from '../../../src/format/icechunk/framing.ts';
import { zstdDecompress } from '../../../src/format/icechunk/zstd.ts';
import { isFloeError } from '../../../src/errors.ts';
import { zstdBackend } from '../../../src/format/codecs/zstd-backend.ts';
import { describeEachZstdBackend, withoutContentSize } from '../../support/zstd.ts';

const codeOf = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    return isFloeError(err) ? err.code : 'other';
  }
  return 'none';
};

describe('header', () => {
  it('is 39 bytes laid out as the spec table says', () => {
    expect(HEADER_SIZE).toBe(39);
    expect(HEADER_OFFSETS).toEqual({ magic: 0, implementation: 12, specVersion: 36, fileType: 37, compression: 38 });
    expect(Buffer.from(MAGIC).toString('hex')).toBe('494345f09fa78a4348554e4b');
  });

  it('pads the implementation name with spaces and round-trips', () => {
    const bytes = encodeHeader({ implementation: 'ic-2.0.0', specVersion: 2, fileType: 'manifest', compression: 'zstd' });
    expect(Buffer.from(bytes.subarray(12, 36)).toString()).toBe('ic-2.0.0' + ' '.repeat(16));
    expect([bytes[36], bytes[37], bytes[38]]).toEqual([2, 2, 1]);
    expect(decodeHeader(bytes, 'manifest')).toEqual({ implementation: 'ic-2.0.0', specVersion: 2, fileType: 'manifest', compression: 'zstd' });
  });

  it('rejects wrong magic, wrong type, unknown versions and compressions', () => {
    const good = encodeHeader({ implementation: 'x', specVersion: 2, fileType: 'snapshot', compression: 'none' });
    const with_ = (at: number, v: number) => { const b = good.slice(); b[at] = v; return b; };
    expect(codeOf(() => decodeHeader(with_(0, 0), 'snapshot'))).toBe('CORRUPT_OBJECT');
    expect(codeOf(() => decodeHeader(good, 'manifest'))).toBe('CORRUPT_OBJECT');
    expect(codeOf(() => decodeHeader(with_(36, 3), 'snapshot'))).toBe('UNSUPPORTED');
    expect(codeOf(() => decodeHeader(with_(38, 7), 'snapshot'))).toBe('UNSUPPORTED');
    expect(codeOf(() => decodeHeader(good.subarray(0, 20), 'snapshot'))).toBe('CORRUPT_OBJECT');
  });

  it('refuses an implementation name longer than 24 bytes', () => {
    expect(codeOf(() => encodeHeader({ implementation: 'x'.repeat(25), specVersion: 2, fileType: 'snapshot', compression: 'none' }))).toBe('INVALID_ARGUMENT');
  });
});

describeEachZstdBackend('zstd framing', () => {
  it('decodes frames without a content size (as the reference writes them)', () => {
    const payload = new Uint8Array(300_000).map((_, i) => i % 251);
    const frame = withoutContentSize(zstdBackend().compress(payload, 3, false), payload.length);
    expect(frame[4]! & 0xe0).toBe(0); // Frame_Content_Size_flag and Single_Segment_flag unset
    expect(Buffer.from(zstdDecompress(frame)).equals(payload)).toBe(true);
  });

  it('reports a truncated frame as CORRUPT_OBJECT', () => {
    const frame = zstdBackend().compress(new Uint8Array(10_000).fill(7), 3, false);
    expect(codeOf(() => zstdDecompress(frame.subarray(0, frame.length - 3)))).toBe('CORRUPT_OBJECT');
  });

  it('round-trips whole files and checks the Ichk identifier', () => {
    const payload = Uint8Array.from([8, 0, 0, 0, 0x49, 0x63, 0x68, 0x6b, 1, 2, 3]);
    const file = encodeFile('transactionLog', 2, payload);
    expect(decodeFile(file, 'transactionLog').payload).toEqual(payload);
    const bad = payload.slice();
    bad[4] = 0;
    expect(codeOf(() => decodeFile(encodeFile('transactionLog', 2, bad), 'transactionLog'))).toBe('CORRUPT_OBJECT');
  });
});
