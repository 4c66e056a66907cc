// NumPy-style printing and the command-line grammars (targets, selections, query text).
import { describe, expect, it } from 'vitest';
import { formatArray } from '../../src/cli/format-array.ts';
import { parseQueryText } from '../../src/cli/query-text.ts';
import { parseSelection, parseTarget } from '../../src/cli/targets.ts';
import { slice } from '../../src/engine/selection.ts';
import { parseDataType } from '../../src/format/zarr/data-types.ts';

const fmt = (data: ArrayLike<number>, shape: number[], dtype: string, threshold?: number) =>
  formatArray(dtype === 'float32' ? Float32Array.from(data) : dtype === 'int32' ? Int32Array.from(data) : Float64Array.from(data), shape, parseDataType(dtype), threshold ? { threshold } : {});

describe('formatArray', () => {
  it('prints like NumPy: aligned columns, shortest exact decimals, nan/inf', () => {
    expect(fmt([1, 2.5, -3], [3], 'float64')).toBe('[ 1.0  2.5 -3.0]');
    expect(fmt([1.5, 273.15, NaN, Infinity], [2, 2], 'float32')).toBe('[[  1.50 273.15]\n [   nan    inf]]');
    expect(fmt([0.1, 273.15], [2], 'float32')).toBe('[1.0000e-01 2.7315e+02]'); // NumPy too: a range over 1000x
    expect(fmt([1, 2, 3, 4, 5, 6], [2, 3], 'int32')).toBe('[[1 2 3]\n [4 5 6]]');
    expect(fmt([1e-6, 1], [2], 'float64')).toBe('[1e-06 1e+00]');
  });

  it('elides the middle of every dimension above the threshold', () => {
    const out = fmt(Array.from({ length: 100 }, (_, i) => i), [10, 10], 'int32', 50);
    expect(out.split('\n')).toHaveLength(7);
    expect(out).toContain('[ 0  1  2 ...  7  8  9]');
    expect(out).toContain(' ...\n');
  });
});

describe('command-line grammars', () => {
  it('parses ref:path[slice] targets', () => {
    expect(parseTarget('v1:/a/b[0, 1:5, ::-2, ...]')).toEqual({ ref: 'v1', path: '/a/b', selection: [0, slice(1, 5), slice(null, null, -2), '...'] });
    expect(parseTarget('a/b')).toEqual({ ref: 'main', path: '/a/b', selection: undefined });
    expect(parseTarget('main:')).toMatchObject({ path: '/' });
    expect(parseSelection(':, -1')).toEqual([null, -1]);
    expect(() => parseSelection('1.5')).toThrow(/bad index/);
  });

  it('turns builder-call text into the JSON query form', () => {
    expect(parseQueryText(`query(...).from("/t", 'float32').where("time", 'between', [2024-07-01T00:00:00.000Z, date("2024-07-02")]).nearest("lat", -4.5, { tolerance: 1 }).limit("x", 3).where("id", "=", 12n)`)).toEqual({
      from: '/t',
      dtype: 'float32',
      ops: [
        { where: ['time', 'between', [{ date: '2024-07-01T00:00:00.000Z' }, { date: '2024-07-02' }]] },
        { nearest: ['lat', -4.5, { tolerance: 1 }] },
        { limit: ['x', 3] },
        { where: ['id', '=', { bigint: '12' }] },
      ],
    });
    expect(parseQueryText('{"from": "/x"}')).toEqual({ from: '/x' });
    expect(() => parseQueryText('.from("/x").frobnicate(1)')).toThrow(/unknown call/);
    expect(() => parseQueryText('.where("a", "=", 1)')).toThrow(/starts with .from/);
  });
});
