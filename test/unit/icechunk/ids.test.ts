import { describe, expect, it } from 'vitest';
import {
  decodeBase32, encodeBase32, INITIAL_SNAPSHOT_ID, newNodeId, newSnapshotId, parseSnapshotId, parseNodeId, idToString,
} from '../../../src/format/icechunk/ids.ts';
import { isFloeError } from '../../../src/errors.ts';

const hex = (s: string) => Uint8Array.from(Buffer.from(s, 'hex'));

describe('Crockford base32 ids', () => {
  it('matches the spec vectors', () => {
    expect(encodeBase32(hex('0b1cc8d6787580f0e33a6534'))).toBe('1CECHNKREP0F1RSTCMT0');
    expect(encodeBase32(hex('000102030405060708090a0b'))).toBe('000G40R40M30E209185G');
    expect(decodeBase32('1CECHNKREP0F1RSTCMT0', 12)).toEqual(hex('0b1cc8d6787580f0e33a6534'));
    expect(decodeBase32('000G40R40M30E209185G', 12)).toEqual(hex('000102030405060708090a0b'));
    expect(idToString(INITIAL_SNAPSHOT_ID)).toBe('1CECHNKREP0F1RSTCMT0');
  });

  it('gives 20 characters for 12 bytes and 13 for 8', () => {
    expect(idToString(newSnapshotId())).toHaveLength(20);
    expect(idToString(newNodeId())).toHaveLength(13);
  });

  it('round-trips random ids', () => {
    for (let i = 0; i < 100; i++) {
      const id = newSnapshotId();
      expect(parseSnapshotId(idToString(id))).toEqual(id);
      const node = newNodeId();
      expect(parseNodeId(idToString(node))).toEqual(node);
    }
  });

  it('rejects lowercase, excluded letters, wrong lengths and non-zero padding bits', () => {
    for (const bad of ['1cechnkrep0f1rstcmt0', '1CECHNKREP0F1RSTCMTI', '1CECHNKREP0F1RSTCMT', '1CECHNKREP0F1RSTCMT1']) {
      expect(decodeBase32(bad, 12)).toBeUndefined();
    }
    try {
      parseSnapshotId('nope');
      expect.fail('should throw');
    } catch (err) {
      expect(isFloeError(err, 'INVALID_ARGUMENT')).toBe(true);
    }
  });
});
