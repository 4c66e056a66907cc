// src/platform/host.ts has two paths: Node's Buffer where the host has one, plain JavaScript in a
// browser. The browser path is loaded here with Buffer hidden from globalThis, and each function is
// checked against the Node path on random input (fast-check): same results, byte for byte.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import * as node from '../../../src/platform/host.ts';

type Host = typeof node;
let browser: Host;

beforeAll(async () => {
  vi.stubGlobal('Buffer', undefined);
  vi.resetModules();
  browser = await import('../../../src/platform/host.ts?browser' as string) as Host;
  vi.unstubAllGlobals();
});
afterAll(() => vi.unstubAllGlobals());

const bytes = fc.uint8Array({ maxLength: 200 });
// Lone surrogates included: both paths must count them as U+FFFD's 3 bytes.
const text = fc.string({ unit: fc.oneof(fc.constant('\ud800'), fc.constant('\udc00'), fc.constant('€'), fc.constant('é'), fc.constant('😀'), fc.constant('a')), maxLength: 30 });

describe('platform/host: the browser path equals the Node path', () => {
  it('loaded the browser path without Buffer (its allocation is zeroed, never pooled)', () => {
    const out = browser.allocateOwnBytes(16);
    expect(out.constructor).toBe(Uint8Array);
    expect([...out]).toEqual(new Array(16).fill(0));
    expect(node.allocateOwnBytes(16).buffer.byteLength).toBe(16);
    // Node's concat returns a Buffer; the browser path a plain Uint8Array: proof it is the other path.
    expect(browser.concatBytes([Uint8Array.of(1)]).constructor).toBe(Uint8Array);
    expect(node.concatBytes([Uint8Array.of(1)]).constructor).not.toBe(Uint8Array);
  });

  it('sameBytes, containsText, concatBytes', () => {
    fc.assert(fc.property(bytes, bytes, fc.array(bytes, { maxLength: 5 }), (a, b, parts) => {
      expect(browser.sameBytes(a, b)).toBe(node.sameBytes(a, b));
      expect(browser.sameBytes(a, new Uint8Array(a))).toBe(true);
      expect([...browser.concatBytes(parts)]).toEqual([...node.concatBytes(parts)]);
    }));
    fc.assert(fc.property(fc.uint8Array({ maxLength: 60, max: 3 }).map((x) => x.map((v) => 0x61 + v)), fc.string({ unit: fc.constantFrom('a', 'b', 'c', 'd'), minLength: 1, maxLength: 4 }), (hay, needle) => {
      expect(browser.containsText(hay, needle)).toBe(node.containsText(hay, needle));
    }));
  });

  it('swapBytesInPlace for widths 2, 4 and 8', () => {
    // Aligned (word moves) and misaligned (byte moves) views alike.
    fc.assert(fc.property(bytes, fc.constantFrom(2 as const, 4 as const, 8 as const), fc.nat(7), (input, width, shift) => {
      const even = input.subarray(0, input.length - (input.length % width));
      const a = new Uint8Array(even.length + shift).subarray(shift);
      a.set(even);
      const b = new Uint8Array(even);
      browser.swapBytesInPlace(a, width);
      node.swapBytesInPlace(b, width);
      expect([...a]).toEqual([...b]);
    }));
  });

  it('utf8Length, isWellFormedText, base64 both ways', () => {
    fc.assert(fc.property(text, bytes, (t, b) => {
      expect(browser.utf8Length(t)).toBe(node.utf8Length(t));
      expect(browser.isWellFormedText(t)).toBe(!/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(t));
      const encoded = node.toBase64(b);
      expect(browser.toBase64(b)).toBe(encoded);
      expect([...browser.fromBase64(encoded)]).toEqual([...b]);
    }));
    expect(browser.toBase64(new Uint8Array(100_000).fill(7))).toBe(node.toBase64(new Uint8Array(100_000).fill(7)));
  });

  it('randomBytes, yieldToHost, runtimeName', async () => {
    const r = browser.randomBytes(12);
    expect(r).toHaveLength(12);
    expect(browser.sameBytes(r, browser.randomBytes(12))).toBe(false);
    await browser.yieldToHost();
    expect(node.hostEnv('PATH')).toBe(process.env['PATH']);
    expect(node.hostEnv('FLOE_NO_SUCH_VARIABLE')).toBeUndefined();
    expect(node.runtimeName()).toBe(`Node ${process.version}`);
    expect(browser.HOST_LITTLE_ENDIAN).toBe((await import('node:os')).endianness() === 'LE');
    expect(node.maxBufferLength()).toBe((await import('node:buffer')).constants.MAX_LENGTH);
  });
});
