import { describe, expect, it } from 'vitest';
import { ByteLru } from '../../src/cache/lru.ts';

describe('ByteLru', () => {
  it('loads a key once for concurrent callers (single flight)', async () => {
    const cache = new ByteLru<string, { n: number }>({ maxBytes: 1000, sizeOf: () => 10 });
    let calls = 0;
    const loader = async () => {
      calls++;
      await new Promise((r) => setTimeout(r, 5));
      return { n: 1 };
    };
    const results = await Promise.all(Array.from({ length: 20 }, () => cache.load('a', loader)));
    expect(calls).toBe(1);
    expect(new Set(results).size).toBe(1);
    await cache.load('a', loader);
    expect(calls).toBe(1);
    expect(cache.stats()).toMatchObject({ hits: 1, misses: 1, joined: 19, entries: 1, bytes: 10 });
  });

  it('evicts least recently used entries beyond the byte budget', async () => {
    const cache = new ByteLru<string, { size: number }>({ maxBytes: 100, sizeOf: (v) => v.size });
    cache.set('a', { size: 40 });
    cache.set('b', { size: 40 });
    cache.get('a');
    cache.set('c', { size: 40 });
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')).toBeDefined();
    cache.set('huge', { size: 1000 });
    expect(cache.get('huge')).toBeUndefined();
    expect(cache.stats().bytes).toBeLessThanOrEqual(100);
  });

  it('counts evictions, but not deletes, replacements or clears', () => {
    const cache = new ByteLru<string, { size: number }>({ maxBytes: 100, sizeOf: (v) => v.size });
    cache.set('a', { size: 30 });
    cache.set('b', { size: 30 });
    cache.set('c', { size: 30 });
    expect(cache.stats().evictions).toBe(0);
    cache.set('d', { size: 50 }); // 140 bytes: 'a' then 'b' must go
    expect(cache.stats()).toMatchObject({ evictions: 2, entries: 2, bytes: 80 });
    cache.set('c', { size: 20 });
    cache.delete('d');
    cache.set('oversized', { size: 101 }); // refused: it evicts nothing
    cache.clear();
    expect(cache.stats().evictions).toBe(2);
  });

  it('does not cache failures', async () => {
    const cache = new ByteLru<string, { n: number }>({ maxBytes: 100, sizeOf: () => 1 });
    await expect(cache.load('a', async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    await expect(cache.load('a', async () => ({ n: 2 }))).resolves.toEqual({ n: 2 });
  });

  it('refuses a budget that is not positive', () => {
    expect(() => new ByteLru({ maxBytes: 0, sizeOf: () => 1 })).toThrow(RangeError);
  });
});
