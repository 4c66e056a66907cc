// The JSON reader/writer used for zarr.json: exact 64-bit integers, prototype-safe objects, and
// INVALID_METADATA (never a SyntaxError) for malformed documents.
import { describe, expect, it } from 'vitest';
import { isFloeError } from '../../../src/errors.ts';
import { parseJson, stringifyJson } from '../../../src/format/json.ts';

function invalid(text: string): unknown {
  try {
    parseJson(text, 'a/zarr.json');
  } catch (err) {
    return err;
  }
  throw new Error(`expected ${JSON.stringify(text)} to be refused`);
}

describe('parseJson', () => {
  it('keeps integers beyond 2^53 exact as bigint and safe ones as numbers', () => {
    const doc = parseJson('[9223372036854775807, -9223372036854775808, 18446744073709551615, 9007199254740993, 9007199254740991, -0, 1.5e3]');
    expect(doc).toEqual([9223372036854775807n, -9223372036854775808n, 18446744073709551615n, 9007199254740993n, 9007199254740991, -0, 1500]);
    expect(Object.is((doc as unknown[])[5], -0)).toBe(true);
  });

  it('reads a "__proto__" key as data, never as the prototype', () => {
    const doc = parseJson('{"__proto__": {"polluted": true}, "a": 1}') as Record<string, unknown>;
    expect(Object.getPrototypeOf(doc)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.keys(doc)).toEqual(['__proto__', 'a']);
    expect(Object.getOwnPropertyDescriptor(doc, '__proto__')?.value).toEqual({ polluted: true });
  });

  it('decodes escapes and unicode like JSON.parse', () => {
    const text = '{"s": "a\\"b\\\\c\\/\\n\\u00e9\\ud83e\\uddca", "e": [], "o": {}, "t": true, "f": false, "n": null}';
    expect(parseJson(text)).toEqual(JSON.parse(text));
  });

  it.each([
    '', '{', '[1,]', '{"a":1,}', '{"a" 1}', '{a:1}', "{'a':1}", '[1 2]', '01', '1.', '.5', '-', '+1', 'NaN', 'Infinity',
    'tru', 'nul', '"unterminated', '"bad \\x escape"', '"raw\u0001control"', '[1] x', '{"a":1}}',
  ])('refuses %j with INVALID_METADATA naming where', (text) => {
    const err = invalid(text);
    expect(isFloeError(err, 'INVALID_METADATA')).toBe(true);
    expect((err as Error).message).toContain('a/zarr.json');
  });
});

describe('stringifyJson', () => {
  it('writes bigint as plain digits, so parse(stringify(x)) keeps 64-bit values', () => {
    const doc = { big: 18446744073709551615n, neg: -9223372036854775808n, small: 3 };
    const text = stringifyJson(doc);
    expect(text).toContain('18446744073709551615');
    expect(parseJson(text)).toEqual(doc);
  });

  it('keeps the sign of negative zero (a -0.0 fill value must survive a round trip)', () => {
    const text = stringifyJson({ fill_value: -0 });
    const back = parseJson(text) as { fill_value: number };
    expect(Object.is(back.fill_value, -0)).toBe(true);
    // Python's json reads "-0.0" as a float -0.0 (but "-0" as the integer 0).
    expect(JSON.parse(text).fill_value).toBe(-0);
    expect(text).toContain('-0.0');
  });

  it('writes __proto__ keys back as ordinary keys', () => {
    const doc = parseJson('{"__proto__": 1}');
    expect(stringifyJson(doc, 0)).toBe('{"__proto__":1}');
  });

  it('matches JSON.stringify layout with a 2-space indent', () => {
    const doc = { a: [1, { b: 'x' }], c: {}, d: [] };
    expect(stringifyJson(doc)).toBe(JSON.stringify(doc, null, 2));
  });
});
