// Which byte views may be moved to another thread whole (src/format/bytes.ts): a view that spans
// its own buffer, or any part of a buffer made by freshBytes; never a part of someone else's
// buffer (Node's pool, a larger array) nor shared memory.
import { describe, expect, it } from 'vitest';
import { freshBytes, transferable } from '../../../src/format/bytes.ts';

describe('transferable', () => {
  it('accepts a whole buffer and any part of a fresh one', () => {
    expect(transferable(new Uint8Array(16))).toBe(true);
    const fresh = freshBytes(1 << 16);
    expect(fresh.length).toBe(1 << 16);
    expect(transferable(fresh.subarray(0, 100))).toBe(true);
    expect(transferable(fresh.subarray(10, 20))).toBe(true);
  });

  it('refuses part of another buffer, a pooled Buffer and shared memory', () => {
    expect(transferable(new Uint8Array(16).subarray(0, 8))).toBe(false);
    expect(transferable(Buffer.from('pooled'))).toBe(false);
    expect(transferable(new Uint8Array(new SharedArrayBuffer(16)))).toBe(false);
  });
});
