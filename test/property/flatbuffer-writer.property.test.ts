// The in-place writers the repo info encoder uses on every commit lay out exactly the bytes the
// flatbuffers runtime's own calls do: strings (ASCII or not) after arbitrary earlier content, and
// raw id bytes pushed four at a time.
import { Builder } from 'flatbuffers';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createAsciiString, pushBytes } from '../../src/format/icechunk/flatbuffer-writer.ts';

const RUNS = Number(process.env.FLOE_WRITER_PROPERTY_RUNS ?? 300);

/** Arbitrary earlier content, so that strings start at every alignment. */
const prefixArb = fc.array(fc.oneof(fc.integer({ min: 0, max: 255 }).map((n) => ({ kind: 'byte' as const, n })), fc.integer().map((n) => ({ kind: 'int' as const, n }))), { maxLength: 9 });
type Prefix = { kind: 'byte' | 'int'; n: number }[];

function builderWith(prefix: Prefix): Builder {
  const b = new Builder(16); // small, so that writes also cross buffer growth
  for (const p of prefix) {
    if (p.kind === 'byte') b.addInt8(p.n);
    else b.addInt32(p.n);
  }
  return b;
}

const finished = (b: Builder, root: number) => {
  b.finish(root);
  return Buffer.from(b.asUint8Array());
};

describe('in-place flatbuffers writers = the runtime calls', () => {
  it('createAsciiString writes what createString writes, for any string', () => {
    // Code points around the ASCII edge (0x7f/0x80) are the ones a wrong check would miswrite.
    const nearAscii = fc.integer({ min: 0x60, max: 0x2ff }).map((c) => String.fromCharCode(c));
    const text = fc.oneof(fc.string({ maxLength: 40 }), fc.string({ unit: nearAscii, maxLength: 20 }), fc.string({ unit: 'binary', maxLength: 40 }), fc.string({ unit: 'grapheme', maxLength: 10 }));
    fc.assert(
      fc.property(prefixArb, fc.array(text, { minLength: 1, maxLength: 6 }), (prefix, strings) => {
        const plain = builderWith(prefix);
        const fast = builderWith(prefix);
        let a = 0;
        let c = 0;
        for (const s of strings) {
          a = plain.createString(s);
          c = createAsciiString(fast, s);
          expect(c).toBe(a);
        }
        expect(finished(fast, c).equals(finished(plain, a))).toBe(true);
      }),
      { numRuns: RUNS },
    );
  });

  it('pushBytes lays out the bytes in order, whatever their length', () => {
    fc.assert(
      fc.property(prefixArb, fc.uint8Array({ maxLength: 20 }), (prefix, bytes) => {
        const plain = builderWith(prefix);
        const fast = builderWith(prefix);
        plain.prep(1, bytes.length);
        for (let i = bytes.length - 1; i >= 0; i--) plain.writeInt8(bytes[i]!);
        fast.prep(1, bytes.length);
        pushBytes(fast, bytes);
        expect(fast.offset()).toBe(plain.offset());
        const at = fast.dataBuffer().capacity() - fast.offset();
        expect(Buffer.from(fast.dataBuffer().bytes().subarray(at, at + bytes.length)).equals(Buffer.from(bytes))).toBe(true);
        expect(finished(fast, fast.offset()).equals(finished(plain, plain.offset()))).toBe(true);
      }),
      { numRuns: RUNS },
    );
  });
});
