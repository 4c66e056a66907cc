// config.yaml tags: every application tag (`!name value`) becomes `{ name: value }`, whether or
// not Floe knows the store kind, and the yaml package is not left to warn and drop the tag.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { isFloeError } from '../../../src/errors.ts';
import { decodeV1Config } from '../../../src/format/icechunk/spec1-config.ts';

const config = (text: string) => decodeV1Config(new TextEncoder().encode(text));

describe('spec-1 config.yaml tags', () => {
  let warn: ReturnType<typeof vi.spyOn>;
  beforeEach(() => {
    warn = vi.spyOn(process, 'emitWarning');
  });
  afterEach(() => {
    expect(warn).not.toHaveBeenCalled();
    warn.mockRestore();
  });

  it('keeps an unknown tag on a map, a sequence and a scalar', () => {
    expect(config('a: !foo {a: 1}\nb: !bar [1, two]\nc: !baz hello\n')).toEqual({
      a: { foo: { a: 1 } },
      b: { bar: [1, 'two'] },
      c: { baz: 'hello' },
    });
  });

  it('reads known store tags the same way', () => {
    expect(config("s: !s3_compatible\n  region: us-east-1\n  anonymous: false\nf: !local_file_system ''\naz: !azure {}\n")).toEqual({
      s: { s3_compatible: { region: 'us-east-1', anonymous: false } },
      f: { local_file_system: '' },
      az: { azure: {} },
    });
  });

  it('resolves a tagged plain scalar as an untagged one would be, quoted ones stay strings', () => {
    expect(config("n: !count 12\nx: !ratio 0.5\nt: !flag true\nz: !nothing null\nq: !name '12'\n")).toEqual({
      n: { count: 12 },
      x: { ratio: 0.5 },
      t: { flag: true },
      z: { nothing: null },
      q: { name: '12' },
    });
  });

  it('wraps nested tags, verbatim tags, and tagged values repeated through aliases', () => {
    expect(config('outer: !a\n  inner: !b [!c 1]\nv: !<tag:example.com,2026:thing> 3\nfirst: &x !foo {k: 1}\nagain: *x\n')).toEqual({
      outer: { a: { inner: { b: [{ c: 1 }] } } },
      v: { 'tag:example.com,2026:thing': 3 },
      first: { foo: { k: 1 } },
      again: { foo: { k: 1 } },
    });
  });

  it("leaves YAML's own tags to YAML", () => {
    expect(config('a: !!str 12\nb: !!int "7"\n')).toEqual({ a: '12', b: 7 });
  });

  it('fails malformed YAML with CORRUPT_OBJECT', () => {
    for (const text of ['a: [1, 2\n', 'a: 1\na: 2\n', 'a: *missing\n']) {
      let error: unknown;
      try {
        config(text);
      } catch (err) {
        error = err;
      }
      expect(isFloeError(error, 'CORRUPT_OBJECT'), text).toBe(true);
    }
  });
});
