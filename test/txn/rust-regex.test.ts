// Issue 18: the reference's split conditions are Rust regexes. Floe reads them with Rust's
// meaning (the table's expectations are Rust's, checked against the reference 2.2.2), refuses
// what Rust refuses by matching nothing, never with a raw SyntaxError, and names what it cannot
// translate.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { rustRegex, rustRegexMatches } from '../../src/txn/rust-regex.ts';
import { RUST_REGEX_CASES } from '../support/rust-regex-cases.ts';

const RUNS = Number(process.env.FLOE_RUST_REGEX_FUZZ_RUNS ?? 2000);

describe('Rust regex patterns in Floe', () => {
  it.each(RUST_REGEX_CASES.map((c) => [c.pattern, c.text, c] as const))('%j on %j', (_pattern, _text, { pattern, text, rust, floe }) => {
    const read = rustRegex(pattern);
    expect(read.kind).toBe(floe ?? 'ok');
    // What Floe does not translate matches nothing, like what Rust refuses.
    expect(rustRegexMatches(pattern, text)).toBe(floe === undefined ? rust : false);
  });

  it('says why a pattern matches nothing', () => {
    expect(rustRegex('(?=a)')).toEqual({ kind: 'invalid', reason: 'look-around is not supported by Rust regex' });
    expect(rustRegex('a(?i)b')).toEqual({ kind: 'unsupported', reason: 'the case-insensitive flag i only where it starts the pattern, as (?i)' });
    expect(rustRegex('[a&&b]')).toMatchObject({ kind: 'unsupported', reason: expect.stringContaining('&&') });
    expect(rustRegex('\\p{letter}')).toMatchObject({ kind: 'unsupported', reason: expect.stringContaining('\\p{letter}') });
  });

  it('never throws, whatever the pattern: it compiles, or it is invalid or unsupported', () => {
    // Mostly regex syntax, so that the fuzz reaches deep into classes, groups and escapes.
    const syntax = fc.constantFrom(...'()[]{}^$.*+?|\\-:=!<>,#&~ aAbBdDsSwWpPxuUzZ0159{}iImsxRU_é😀\n'.split(''));
    const pattern = fc.oneof(fc.string({ maxLength: 16 }), fc.array(syntax, { maxLength: 16 }).map((cs) => cs.join('')));
    fc.assert(
      fc.property(pattern, fc.string({ maxLength: 8 }), (p, text) => {
        const read = rustRegex(p);
        expect(['ok', 'invalid', 'unsupported']).toContain(read.kind);
        if (read.kind !== 'ok') expect(read.reason.length).toBeGreaterThan(0);
        expect(typeof rustRegexMatches(p, text)).toBe('boolean');
      }),
      { numRuns: RUNS },
    );
  });

  it('a literal pattern matches exactly where the text contains it', () => {
    const escaped = (s: string) => Array.from(s, (ch) => (/[A-Za-z0-9]/.test(ch) ? ch : `\\x{${(ch.codePointAt(0) ?? 0).toString(16)}}`)).join('');
    fc.assert(
      fc.property(fc.string({ maxLength: 4 }), fc.string({ maxLength: 10 }), (needle, text) => {
        expect(rustRegexMatches(escaped(needle), text)).toBe(text.includes(needle));
      }),
      { numRuns: Math.ceil(RUNS / 4) },
    );
  });
});
